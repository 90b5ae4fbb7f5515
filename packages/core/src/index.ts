export * from './catalog/instrument.ts';
export * from './catalog/markets.ts';
export * from './configuration/index.ts';
export * from './decimal.ts';
export * from './errors.ts';
export * from './ids.ts';
export * from './market/index.ts';
export * from './timeframes.ts';
