export * from './captured-positions.ts';
export type { BookFill, FillOrder, FillOutcome, PositionEvent, PositionEventType } from './fill-outcome.ts';
export type { PositionSnapshot, PositionView } from './position.ts';
export * from './position-book.ts';
export * from './trade-lot.ts';
