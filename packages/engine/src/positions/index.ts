export * from './position-book.ts';
