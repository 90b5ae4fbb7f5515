/**
 * A run's earlier attempts (decision 40): the attempts that ended without an outcome, because their
 * worker was lost or stopped or the platform failed, after which the run went back to the queue and
 * ran again from the start. Shown only when there were any.
 */
import type { components } from '../api/openapi.gen.ts';
import { formatInstant } from '../format.ts';

type Attempt = components['schemas']['ScenarioAttempt'];

const endLabels: Record<Attempt['end'], string> = {
  worker_lost: 'worker lost',
  worker_stopped: 'worker stopped, run handed back',
  platform_error: 'platform error',
};

export function RunAttempts({ attempt, attempts }: { attempt: number; attempts: Attempt[] }) {
  if (attempts.length === 0) return null;
  return (
    <section className="runs-section" aria-labelledby="attempts-title">
      <h2 id="attempts-title">Attempts</h2>
      <p className="runs-hint">
        This is attempt {attempt}. Earlier attempts ended for platform reasons and the run started again; a
        retried run's files equal a first run's.
      </p>
      <ol className="runs-attempts">
        {attempts.map((earlier) => (
          <li key={earlier.attempt} value={earlier.attempt}>
            <strong>{endLabels[earlier.end]}</strong> at {formatInstant(earlier.endedAt)}{' '}
            <span className="muted">(started {formatInstant(earlier.startedAt)})</span>: {earlier.message}
          </li>
        ))}
      </ol>
    </section>
  );
}
