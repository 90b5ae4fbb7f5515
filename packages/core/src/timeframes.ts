/** The twelve candle timeframes, smallest to largest (spec: Valid events, gateway Timeframe enum). */
export const TIMEFRAMES = [
  '1m',
  '2m',
  '5m',
  '10m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '12h',
  '1d',
  '1w',
] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

export const MINUTE_TIMEFRAMES = TIMEFRAMES.filter((tf) => tf.endsWith('m'));
export const HOUR_TIMEFRAMES = TIMEFRAMES.filter((tf) => tf.endsWith('h'));

export const isTimeframe = (value: string): value is Timeframe =>
  (TIMEFRAMES as readonly string[]).includes(value);

/** Catalog `granularities`: `tick` first, then every candle timeframe. */
export const GRANULARITIES = ['tick', ...TIMEFRAMES] as const;
