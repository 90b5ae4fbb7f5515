export * from './results/index.ts';
