/**
 * A sweep's runs per state as badges ("3 Complete", "1 Running"), in the runs' lifecycle order, with
 * the run page's badges (run-state.tsx).
 */
import { RUN_STATES, RunStateBadge } from './run-state.tsx';

export function SweepStateCounts({ states }: { states: Record<string, number> }) {
  const known: readonly string[] = RUN_STATES;
  const order = [...known, ...Object.keys(states).filter((s) => !known.includes(s))];
  const shown = order.filter((state) => (states[state] ?? 0) > 0);
  if (shown.length === 0) return <span className="muted">No runs</span>;
  return (
    <ul className="sweeps-states">
      {shown.map((state) => (
        <li key={state}>
          <RunStateBadge state={state} count={states[state]} />
        </li>
      ))}
    </ul>
  );
}

/** Whether any run of the counts may still change state (the pages poll while so). */
export const anyLive = (states: Record<string, number>) =>
  ['QUEUED', 'PENDING', 'RUNNING'].some((state) => (states[state] ?? 0) > 0);
