export * from './commands.ts';
export * from './order-rules.ts';
export * from './order-states.ts';
export * from './order-types.ts';
export * from './order-view.ts';
export * from './time-in-force.ts';
