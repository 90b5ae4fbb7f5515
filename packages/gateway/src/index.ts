export * from './errors.ts';
export * from './gateway.ts';
export {
  InProcessGateway,
  type InProcessRunEnd,
  type InProcessStrategy,
} from './in-process/in-process-gateway.ts';
export * from './log-filter.ts';
export * from './operations/circuit-breakers.ts';
export * from './operations/rate-limit.ts';
export * from './protocol/index.ts';
export type * from './provider/provider.ts';
export { BarHistory } from './provider/simulation/bar-history.ts';
export { instrumentDefinition, instrumentFromSymbol } from './provider/simulation/instruments.ts';
export {
  checkScenario,
  readScenarioFile,
  type Scenario,
  ScenarioError,
} from './provider/simulation/scenario.ts';
export { SimulationProvider } from './provider/simulation/simulation-provider.ts';
export * from './run-results.ts';
export * from './settings.ts';
export { parseClientFrame } from './stream/client-frames.ts';
export { EventStream, StallError } from './stream/event-stream.ts';
