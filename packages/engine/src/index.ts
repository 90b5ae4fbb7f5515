export * from './account/index.ts';
export * from './engine.ts';
export * from './models/margin.ts';
export * from './orders/index.ts';
export * from './positions/index.ts';
export * from './results/index.ts';
