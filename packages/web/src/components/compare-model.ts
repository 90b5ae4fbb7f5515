/**
 * The compare page's model, apart from its drawing: the best value of each metric across the runs
 * (ties all count as best), the equity curves as chart lines (NAV, or the return on the initial
 * capital in percent), each run's name, and a colour per run. No DOM.
 */
import { compareMetricValues, type MetricDef, metricValue } from './metrics.ts';

/** Indexes of the runs whose value is best for the metric; empty when it has no better way or < 2 values. */
export function bestIndexes(
  metrics: readonly (Record<string, unknown> | null | undefined)[],
  def: Pick<MetricDef, 'key' | 'better'>,
): number[] {
  if (!def.better) return [];
  const values = metrics.map((m) => metricValue(m, def.key));
  const present = values.filter((v): v is number | string => v !== null);
  if (present.length < 2) return [];
  const sign = def.better === 'higher' ? 1 : -1;
  const best = present.reduce((a, b) => (sign * compareMetricValues(b, a) > 0 ? b : a));
  // When every run has the same value, none is better than another.
  if (present.every((v) => compareMetricValues(v, best) === 0)) return [];
  return values.flatMap((v, i) => (v !== null && compareMetricValues(v, best) === 0 ? [i] : []));
}

export interface LinePoint {
  /** UTC seconds, strictly increasing. */
  time: number;
  value: number;
}

/**
 * One run's curve for the chart, from the comparison's shared axis. Floats here are for plotting only.
 * Two samples in one second would break the chart's strictly-ascending times: the later one wins.
 */
export function chartLine(
  timestamps: readonly number[],
  nav: readonly string[],
  initialCapital: number,
  asReturn: boolean,
): LinePoint[] {
  const out: LinePoint[] = [];
  for (let i = 0; i < timestamps.length; i++) {
    const time = Math.floor((timestamps[i] as number) / 1000);
    const navValue = Number(nav[i]);
    const value = asReturn ? (navValue / initialCapital - 1) * 100 : navValue;
    const last = out[out.length - 1];
    if (last && last.time === time) last.value = value;
    else out.push({ time, value });
  }
  return out;
}

/**
 * Ten colours apart in hue and lightness (Tableau 10, darkened to 3:1 on white for the lines); runs 11
 * to 20 reuse them dashed, so twenty runs stay told apart.
 */
export const PALETTE = [
  '#1f5f99',
  '#c2410c',
  '#2f7d32',
  '#b42318',
  '#6d4fa3',
  '#7c4a3a',
  '#b8377f',
  '#5c6670',
  '#7d7a00',
  '#137b85',
] as const;

export function seriesStyle(index: number): { colour: string; dashed: boolean } {
  return { colour: PALETTE[index % PALETTE.length] as string, dashed: index >= PALETTE.length };
}

/** What a run's name is made of (internal.ts's `RunSummary` has it). */
export interface RunNaming {
  strategyName: string;
  versionLabel: string | null;
  label: string | null;
}

/** "SMA crossover v3 · FAST=5,SLOW=20": strategy, version label, run label; the short id without them. */
export function runName(scenarioId: string, summary: RunNaming | undefined, label?: string | null): string {
  const parts = summary
    ? [summary.strategyName, summary.versionLabel, summary.label ?? label].filter(Boolean)
    : [label].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : `Run ${scenarioId.slice(0, 8)}`;
}
