export * from './new-york-time.ts';
export * from './sessions.ts';
