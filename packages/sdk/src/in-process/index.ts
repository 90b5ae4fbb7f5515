/** `@hindsight/sdk/in-process`: run a strategy in this process, against the simulation engine. */
export { type InProcessOptions, type InProcessResult, runInProcess } from './runner.ts';
