export * from './catalog-rules.ts';
export * from './costs.ts';
export * from './env.ts';
export * from './events.ts';
export * from './issues.ts';
export * from './schema.ts';
export * from './timestamps.ts';
