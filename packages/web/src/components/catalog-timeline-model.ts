/**
 * The catalog's coverage timeline, apart from its drawing: one shared day axis over every
 * instrument's data, each range and gap placed on it as percentages, year ticks, and each gap in words
 * ("gap 2024-03-02 to 2025-04-30 (425 days)") for its tooltip and for screen readers. Days are UTC
 * calendar days (YYYY-MM-DD), both ends included. No DOM.
 */

/** A span of UTC days, both ends included: internal.ts's `DayRange`. */
export interface DayRange {
  from: string;
  to: string;
}

/** What the timeline needs of an instrument's coverage (internal.ts's `InstrumentCoverage`), declared here so this module and its test do not load the API client. */
export interface InstrumentCoverage {
  symbol: string;
  ranges: DayRange[];
  gaps: DayRange[];
  firstDay: string | null;
  lastDay: string | null;
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD day. */
export function dayNumber(day: string): number {
  return Math.round(
    Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / DAY_MS,
  );
}

/** Days in a span, both ends included. */
export const spanDays = (range: DayRange) => dayNumber(range.to) - dayNumber(range.from) + 1;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function gapText(gap: DayRange): string {
  const days = spanDays(gap);
  const dates = gap.from === gap.to ? gap.from : `${gap.from} to ${gap.to}`;
  return `gap ${dates} (${plural(days, 'day')})`;
}

export function rangeText(range: DayRange): string {
  const dates = range.from === range.to ? range.from : `${range.from} to ${range.to}`;
  return `data ${dates} (${plural(spanDays(range), 'day')})`;
}

/** The shared axis: from the first day with data to the last, in whole years so ticks sit at the edges. */
export interface TimelineAxis {
  /** First and last day number shown (the last included). */
  start: number;
  end: number;
  /**
   * 1 January of each year inside the axis, with its position in percent; `labelled` on every
   * year, every second or every fifth, so that labels do not run into one another on a long axis.
   */
  ticks: { year: number; left: number; labelled: boolean }[];
}

export function timelineAxis(instruments: readonly InstrumentCoverage[]): TimelineAxis | null {
  const firsts = instruments.flatMap((i) => (i.firstDay ? [dayNumber(i.firstDay)] : []));
  const lasts = instruments.flatMap((i) => (i.lastDay ? [dayNumber(i.lastDay)] : []));
  if (firsts.length === 0 || lasts.length === 0) return null;
  const firstYear = new Date(Math.min(...firsts) * DAY_MS).getUTCFullYear();
  const lastYear = new Date(Math.max(...lasts) * DAY_MS).getUTCFullYear();
  const start = Math.round(Date.UTC(firstYear, 0, 1) / DAY_MS);
  const end = Math.round(Date.UTC(lastYear + 1, 0, 1) / DAY_MS) - 1;
  const axis: TimelineAxis = { start, end, ticks: [] };
  const years = lastYear + 1 - firstYear;
  const step = years <= 12 ? 1 : years <= 24 ? 2 : 5;
  for (let year = firstYear; year <= lastYear + 1; year++) {
    const left = position(axis, Math.round(Date.UTC(year, 0, 1) / DAY_MS));
    // The closing tick (the axis' right edge) is a line without a label.
    axis.ticks.push({ year, left, labelled: year <= lastYear && (year - firstYear) % step === 0 });
  }
  return axis;
}

/** Where a day's start falls on the axis, in percent of its width. */
function position(axis: TimelineAxis, day: number): number {
  return ((day - axis.start) / (axis.end + 1 - axis.start)) * 100;
}

export interface Segment {
  kind: 'data' | 'gap';
  range: DayRange;
  /** Left edge and width in percent of the axis. */
  left: number;
  width: number;
  text: string;
}

/** The instrument's ranges and gaps, in day order, placed on the axis. */
export function segments(axis: TimelineAxis, coverage: InstrumentCoverage): Segment[] {
  const place = (kind: Segment['kind'], range: DayRange): Segment => {
    const left = position(axis, dayNumber(range.from));
    return {
      kind,
      range,
      left,
      width: position(axis, dayNumber(range.to) + 1) - left,
      text: kind === 'gap' ? gapText(range) : rangeText(range),
    };
  };
  return [...coverage.ranges.map((r) => place('data', r)), ...coverage.gaps.map((g) => place('gap', g))].sort(
    (a, b) => a.left - b.left,
  );
}
