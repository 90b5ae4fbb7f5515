/**
 * The sweep heatmap's model, apart from its drawing: which run sits in which cell for a metric and
 * two grid parameters (the other grid keys held at chosen values), the axes' order (numeric when every
 * value is a number), and the colour scale: diverging around zero for signed metrics, sequential
 * otherwise, with a text colour that stays readable on each fill. No DOM.
 */
import { metricValue } from './metrics.ts';

/**
 * What the heatmap needs of a run: the shape of internal.ts's `SweepRun`, declared here so this
 * module (and its test, under Node) does not load the API client.
 */
export interface SweepRun {
  scenarioId: string;
  state: string;
  params: Record<string, string>;
  metrics: Record<string, unknown> | null;
}

/** Parameter values in order: numerically when all are numbers ("5" < "10"), else as text. */
export function sortParamValues(values: Iterable<string>): string[] {
  const unique = [...new Set(values)];
  const numeric = unique.length > 0 && unique.every((v) => v.trim() !== '' && Number.isFinite(Number(v)));
  return numeric
    ? unique.sort((a, b) => Number(a) - Number(b))
    : unique.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** Every value each grid key takes across the runs, sorted. */
export function paramValues(runs: readonly SweepRun[], keys: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of keys) {
    out[key] = sortParamValues(runs.flatMap((run) => (key in run.params ? [run.params[key] as string] : [])));
  }
  return out;
}

export interface HeatCell {
  x: string;
  /** The Y value; null in a one-row heatmap (a sweep over one key). */
  y: string | null;
  /** The run in this cell, null when no run of the sweep has these values. */
  run: SweepRun | null;
  /** The metric's value when the run is COMPLETE and has it (number or exact decimal string). */
  value: number | string | null;
}

export interface HeatGrid {
  xs: string[];
  /** `[null]` for one row. */
  ys: (string | null)[];
  /** Rows in `ys` order, each with a cell per `xs` value. */
  rows: HeatCell[][];
  /** Range of the values present, for the colour scale; null when no cell has a value. */
  min: number | null;
  max: number | null;
  /** Runs left out: another value of a held key, or without a value for X or Y. */
  outside: number;
}

export interface HeatChoice {
  metric: string;
  xKey: string;
  yKey: string | null;
  /** Values the grid keys other than X and Y are held at. */
  fixed: Record<string, string>;
}

export function buildHeatGrid(runs: readonly SweepRun[], choice: HeatChoice): HeatGrid {
  const { xKey, yKey, fixed } = choice;
  const inView = runs.filter(
    (run) =>
      xKey in run.params &&
      (yKey === null || yKey in run.params) &&
      Object.entries(fixed).every(([key, value]) => run.params[key] === value),
  );
  const xs = sortParamValues(inView.map((run) => run.params[xKey] as string));
  const ys: (string | null)[] =
    yKey === null ? [null] : sortParamValues(inView.map((run) => run.params[yKey] as string));
  const at = new Map<string, SweepRun>();
  for (const run of inView) {
    const id = cellId(run.params[xKey] as string, yKey === null ? null : (run.params[yKey] as string));
    // Two runs with the same values (a sweep that also listed configurations): the first one shows.
    if (!at.has(id)) at.set(id, run);
  }
  let min: number | null = null;
  let max: number | null = null;
  const rows = ys.map((y) =>
    xs.map((x): HeatCell => {
      const run = at.get(cellId(x, y)) ?? null;
      const value = run?.state === 'COMPLETE' ? metricValue(run.metrics, choice.metric) : null;
      if (value !== null) {
        const n = Number(value);
        min = min === null ? n : Math.min(min, n);
        max = max === null ? n : Math.max(max, n);
      }
      return { x, y, run, value };
    }),
  );
  return { xs, ys, rows, min, max, outside: runs.length - inView.length };
}

const cellId = (x: string, y: string | null) => JSON.stringify([x, y]);

export type Rgb = readonly [number, number, number];

const NEGATIVE: Rgb = [180, 35, 24];
const NEUTRAL: Rgb = [246, 248, 250];
const POSITIVE: Rgb = [11, 92, 173];
const SEQUENTIAL_LOW: Rgb = [240, 246, 252];
const SEQUENTIAL_HIGH: Rgb = [11, 70, 140];

export interface ColourScale {
  kind: 'diverging' | 'sequential';
  /** The ends of the scale: symmetric around zero when diverging. */
  low: number;
  high: number;
  colour: (value: number) => Rgb;
}

/**
 * Diverging: red below zero, blue above, white at zero, the same intensity for the same distance from
 * zero on either side (so -2 % looks as bad as +2 % looks good). Sequential: light to dark over the
 * values' range. A scale over one value paints it the middle shade.
 */
export function colourScale(signed: boolean, min: number, max: number): ColourScale {
  if (signed) {
    const reach = Math.max(Math.abs(min), Math.abs(max));
    return {
      kind: 'diverging',
      low: -reach,
      high: reach,
      colour: (value) =>
        reach === 0
          ? NEUTRAL
          : value < 0
            ? mix(NEUTRAL, NEGATIVE, -value / reach)
            : mix(NEUTRAL, POSITIVE, value / reach),
    };
  }
  return {
    kind: 'sequential',
    low: min,
    high: max,
    colour: (value) => mix(SEQUENTIAL_LOW, SEQUENTIAL_HIGH, max === min ? 0.5 : (value - min) / (max - min)),
  };
}

function mix(from: Rgb, to: Rgb, t: number): Rgb {
  const k = Math.min(1, Math.max(0, t));
  return [0, 1, 2].map((i) =>
    Math.round((from[i] as number) + ((to[i] as number) - (from[i] as number)) * k),
  ) as unknown as Rgb;
}

export const cssColour = ([r, g, b]: Rgb) => `rgb(${r}, ${g}, ${b})`;

/** WCAG relative luminance. */
function luminance([r, g, b]: Rgb): number {
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/**
 * Black or white, whichever contrasts more with the fill: one of the two always reaches 4.58:1 (at
 * the luminance where they tie), so every cell's text passes WCAG AA.
 */
export function textOn(fill: Rgb): string {
  const l = luminance(fill);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/** Contrast ratio of two colours (WCAG), for the tests. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
