/**
 * How the app shows numbers and times. Money arrives as canonical decimal strings (decision 37): the
 * app rounds only for display, and only here, so every page rounds the same way; exact values stay in
 * the tables' titles, the CSV and the downloads.
 */

/** A decimal string grouped and rounded to `digits` places for display ("12345.678" -> "12,345.68"). */
export function formatDecimal(value: string | number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || value === '') return '—';
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) return String(value);
  return number.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** An amount in the account's currency: two places, with the currency code when known. */
export function formatMoney(value: string | number | null | undefined, currency?: string): string {
  const text = formatDecimal(value, 2);
  return currency && text !== '—' ? `${text} ${currency}` : text;
}

/** A value already in percent units (12.45 means 12.45 %). */
export function formatPercent(value: string | number | null | undefined, digits = 2): string {
  const text = formatDecimal(value, digits);
  return text === '—' ? text : `${text} %`;
}

/** An instant as UTC, to the minute: "2024-03-01 14:05 UTC". */
export function formatInstant(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A duration in seconds as the two largest units: "3 d 4 h", "12 min 5 s". */
export function formatDuration(seconds: number | string | null | undefined): string {
  if (seconds === null || seconds === undefined || seconds === '') return '—';
  let rest = Math.round(Number(seconds));
  if (!Number.isFinite(rest)) return String(seconds);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (unit === 's' && parts.length === 0)) parts.push(`${count} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
