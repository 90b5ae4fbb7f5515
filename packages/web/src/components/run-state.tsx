/**
 * A run's state and how far it has got, as the runs list and the run page show them: a state badge
 * (the word carries the meaning, the colour repeats it) and a progress bar with the percent and the
 * simulated date reached.
 */
import type { RunProgress as Progress, RunSummary } from '../api/internal.ts';
import { formatInstant } from '../format.ts';

export type RunState = RunSummary['state'];

const TERMINAL: ReadonlySet<RunState> = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);

export const isTerminal = (state: RunState) => TERMINAL.has(state);

export const RUN_STATES: readonly RunState[] = [
  'QUEUED',
  'PENDING',
  'RUNNING',
  'COMPLETE',
  'FAILED',
  'CANCELLED',
];

const STATES: Record<RunState, { word: string; tone: string }> = {
  QUEUED: { word: 'Queued', tone: 'neutral' },
  PENDING: { word: 'Pending', tone: 'neutral' },
  RUNNING: { word: 'Running', tone: 'live' },
  COMPLETE: { word: 'Complete', tone: 'good' },
  FAILED: { word: 'Failed', tone: 'bad' },
  CANCELLED: { word: 'Cancelled', tone: 'warn' },
};

/** A state badge (styles.css); `count` prefixes it ("3 Complete"). Unknown states show as they come. */
export function RunStateBadge({ state, count }: { state: string; count?: number }) {
  const known = STATES[state as RunState];
  return (
    <span className={`badge badge-${known?.tone ?? 'neutral'}`}>
      {count === undefined ? '' : `${count} `}
      {known?.word ?? state}
    </span>
  );
}

/**
 * The bar is a div with role="progressbar" rather than <progress>, so its value, range and words are
 * explicit for assistive technology and tests alike. Before the replay starts there is no percent yet:
 * the bar shows empty and says it is waiting.
 */
export function RunProgressBar({
  progress,
  state,
  label,
}: {
  progress: Progress;
  state: RunState;
  label: string;
}) {
  const percent = state === 'COMPLETE' ? 100 : (progress.percent ?? 0);
  const reached = progress.simulatedAt
    ? `reached ${formatInstant(progress.simulatedAt)}`
    : 'waiting to start';
  const text = `${percent.toFixed(1)} %`;
  return (
    <div className="runs-progress">
      <div
        className="runs-progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${text}, ${reached}`}
      >
        <div className="runs-progress-fill" style={{ width: `${Math.min(100, Math.max(0, percent))}%` }} />
      </div>
      <span className="runs-progress-text">
        {text}{' '}
        <span className="muted">
          {progress.simulatedAt ? formatInstant(progress.simulatedAt) : 'not started'}
        </span>
      </span>
    </div>
  );
}
