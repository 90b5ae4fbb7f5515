import type { RunRecord } from '../../repositories/app-runs.ts';

/**
 * How far a run has got, for the web app (`RunProgress` of packages/web/src/api/internal.ts): the
 * simulated time the worker last recorded (`progress_at`, written with each lease renewal and at
 * completion) against the run's window.
 */
export interface RunProgress {
  simulatedAt: string | null;
  percent: number | null;
  windowStart: string;
  windowEnd: string;
}

const iso = (text: string) => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString();
};

export function runProgress(run: Pick<RunRecord, 'settings' | 'state' | 'progressAt'>): RunProgress {
  const start = Date.parse(run.settings.startTime);
  const end = Date.parse(run.settings.endTime);
  const at = run.progressAt?.getTime();
  let percent: number | null = null;
  if (run.state === 'COMPLETE') percent = 100;
  else if (at !== undefined && end > start) {
    const share = ((at - start) / (end - start)) * 100;
    percent = Math.min(100, Math.max(0, Math.round(share * 10) / 10));
  }
  return {
    simulatedAt: run.progressAt ? run.progressAt.toISOString() : null,
    percent,
    windowStart: iso(run.settings.startTime),
    windowEnd: iso(run.settings.endTime),
  };
}
