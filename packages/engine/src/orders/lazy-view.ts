/**
 * Wire objects written when first read or serialised, like candles: the engine emits an order event
 * for every order change and a trade for every fill, and an in-process strategy reads few of them,
 * while a serialised event (the gateway's WebSocket) reads them all through `toJSON`. The view reads
 * its source, which must not change afterwards (order records and fills are immutable values).
 *
 * `lazyView(keys, build)` makes a view class for the wire type `T`: each key is a getter of the built
 * object; `toJSON` returns the built object itself (so the serialised bytes and key order are those of
 * `build`). Fields are not own properties: spread or compare the `toJSON()` of a view.
 */
export function lazyView<T extends object, S>(
  keys: readonly (keyof T & string)[],
  build: (source: S) => T,
): (source: S) => T {
  class View {
    private built: T | undefined;

    constructor(private readonly source: S) {}

    toJSON(): T {
      this.built ??= build(this.source);
      return this.built;
    }
  }
  for (const key of keys) {
    Object.defineProperty(View.prototype, key, {
      get(this: View) {
        return this.toJSON()[key];
      },
      enumerable: true,
    });
  }
  return (source) => new View(source) as unknown as T;
}

/** Compile-time check that a key list names every key of `T` (`true` only then). */
export type EveryKey<T, K extends readonly (keyof T)[]> =
  Exclude<keyof T, K[number]> extends never ? true : false;
