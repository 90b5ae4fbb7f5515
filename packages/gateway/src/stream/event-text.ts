import { Candle } from '@hindsight/engine';
import type { ProviderEvent } from '../provider/provider.ts';

/**
 * An event's JSON text, exactly as `JSON.stringify(event)` writes it. A backtest sends one candle
 * event per bar, so that one is written directly: `{type, bar, timestamp}` as the engine makes it,
 * then the `seq` the stream stamps last, with the bar's own text (`Candle.jsonText`). Everything else
 * goes through `JSON.stringify`.
 */
export function eventText(event: ProviderEvent): string {
  const bar = event.bar;
  if (event.type === 'candle' && bar instanceof Candle && isCandleEvent(event)) {
    return `{"type":"candle","bar":${bar.jsonText()},"timestamp":"${event.timestamp}","seq":${event.seq}}`;
  }
  return JSON.stringify(event);
}

/**
 * The engine's candle event (`emitCandle`: type, bar, timestamp, in that order) with its seq and
 * nothing else, its timestamp a plain ISO time. The order of the keys is the engine's; the tests
 * compare every engine event's text with `JSON.stringify`.
 */
function isCandleEvent(event: ProviderEvent): boolean {
  let keys = 0;
  for (const _ in event) keys++;
  return keys === 4 && typeof event.seq === 'number' && ISO_TIME.test(event.timestamp);
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
