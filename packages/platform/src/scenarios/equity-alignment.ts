/**
 * Equity curves of several runs on one time axis, for `POST /v1/scenarios/compare`: the union of their
 * sample timestamps, each curve carrying its last NAV forward to every timestamp (a NAV holds until the
 * next sample, as in the metrics' daily resampling, decision 10). Before a run's first sample its NAV is
 * its initial capital: the account exists, untouched, before its window opens.
 */
export interface Curve {
  id: string;
  initialCapital: string;
  timestamps: readonly number[];
  nav: readonly string[];
}

export interface AlignedCurves {
  timestamps: number[];
  nav: Record<string, string[]>;
}

export function alignCurves(curves: readonly Curve[]): AlignedCurves {
  const timestamps = [...new Set(curves.flatMap((c) => c.timestamps))].sort((a, b) => a - b);
  const nav: Record<string, string[]> = {};
  for (const curve of curves) {
    const values: string[] = new Array(timestamps.length);
    let next = 0;
    let current = curve.initialCapital;
    for (let i = 0; i < timestamps.length; i++) {
      const t = timestamps[i] as number;
      while (next < curve.timestamps.length && (curve.timestamps[next] as number) <= t) {
        current = curve.nav[next] as string;
        next += 1;
      }
      values[i] = current;
    }
    nav[curve.id] = values;
  }
  return { timestamps, nav };
}
