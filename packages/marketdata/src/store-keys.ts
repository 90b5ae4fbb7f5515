/** Object keys and calendar helpers of the market-data store layout (docs/market-data.md). */
export const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
export const DAY = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
export const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$/;

/** The key segment of a symbol: `C:BTCUSD` is stored as `C_BTCUSD`. */
export function symbolKey(symbol: string): string {
  if (!SYMBOL.test(symbol)) throw new Error(`invalid symbol ${JSON.stringify(symbol)}`);
  return symbol.replaceAll(':', '_');
}

export function barChunkKey(symbol: string, month: string): string {
  return `bars/${symbolKey(symbol)}/${month}.hsb`;
}

export function barIndexKey(symbol: string): string {
  return `bars/${symbolKey(symbol)}/index.json`;
}

export function tickChunkKey(symbol: string, day: string): string {
  return `ticks/${symbolKey(symbol)}/${day}.hst`;
}

export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** UTC month `YYYY-MM` of an epoch-ms time. */
export function utcMonth(time: number): string {
  const d = new Date(time);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}`;
}

/** [start, end) epoch ms of a UTC month `YYYY-MM`. */
export function monthRange(month: string): { start: number; end: number } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`invalid month ${JSON.stringify(month)} (want YYYY-MM)`);
  const year = Number(match[1]);
  const m = Number(match[2]) - 1;
  return { start: Date.UTC(year, m, 1), end: Date.UTC(year, m + 1, 1) };
}

export function dayRange(day: string): { start: number; end: number } {
  const match = DAY.exec(day);
  if (!match) throw new Error(`invalid day ${JSON.stringify(day)} (want YYYY-MM-DD)`);
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (new Date(start).toISOString().slice(0, 10) !== day) throw new Error(`invalid day ${day}`);
  return { start, end: start + 86_400_000 };
}

export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
