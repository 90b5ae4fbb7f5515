export * from './bars.ts';
export * from './new-york-time.ts';
export * from './resample.ts';
export * from './sessions.ts';
export * from './time-zone.ts';
