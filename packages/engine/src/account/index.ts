export * from './account.ts';
export * from './currency.ts';
