/**
 * Wire objects written when first read or serialised, like candles: the engine emits an order event
 * for every order change and a trade for every fill, and an in-process strategy reads few of them,
 * while a serialised event (the gateway's WebSocket) reads them all through `toJSON`. The view reads
 * its source, which must not change afterwards (order records and fills are immutable values).
 *
 * `lazyView(keys, build, direct)` makes a view class for the wire type `T`: each key is a getter of the
 * built object, except the `direct` ones, which `build` copies from the source's field of the same
 * name and are read from it (what routing an event reads, a symbol or an id, then builds nothing);
 * `toJSON` returns the built object itself (so the serialised bytes and key order are those of
 * `build`). Fields are not own properties: spread or compare the `toJSON()` of a view.
 */
export function lazyView<T extends object, S>(
  keys: readonly (keyof T & string)[],
  build: (source: S) => T,
  direct: readonly (keyof T & keyof S & string)[] = [],
): (source: S) => T {
  class View {
    private built: T | undefined;

    constructor(private readonly source: S) {}

    toJSON(): T {
      this.built ??= build(this.source);
      return this.built;
    }

    /** A field `build` copies from the source as it is. */
    copied(key: keyof S): unknown {
      return this.source[key];
    }
  }
  const define = (key: string, get: (this: View) => unknown) =>
    Object.defineProperty(View.prototype, key, { get, enumerable: true });
  for (const key of keys) {
    if ((direct as readonly string[]).includes(key)) continue;
    define(key, function () {
      return this.toJSON()[key];
    });
  }
  for (const key of direct) {
    define(key, function () {
      return this.copied(key);
    });
  }
  return (source) => new View(source) as unknown as T;
}

/** Compile-time check that a key list names every key of `T` (`true` only then). */
export type EveryKey<T, K extends readonly (keyof T)[]> =
  Exclude<keyof T, K[number]> extends never ? true : false;
