export * from './new-york-time.ts';
export * from './sessions.ts';
export * from './bars.ts';
