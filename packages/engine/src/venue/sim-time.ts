/**
 * Simulated time as every part of the engine reads it. The bar loop moves it; records and events are
 * stamped with `stamp`.
 */
export class SimTime {
  /** Simulated time: the end of the last completed group of bars. */
  clock: number;
  /** The time records and events are stamped with: the clock, or the end of the bar being filled. */
  stamp: number;

  constructor(start: number) {
    this.clock = start;
    this.stamp = start;
  }
}
