export * from './metrics.ts';
export * from './result-files.ts';
export * from './timeseries-sampler.ts';
