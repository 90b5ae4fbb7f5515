export * from './position-book.ts';
export * from './trade-lot.ts';
