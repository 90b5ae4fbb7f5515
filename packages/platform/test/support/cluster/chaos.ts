import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from './cluster.ts';
import { stateCounts } from './run-records.ts';

/**
 * Faults for the multi-host test, paced by progress rather than by the clock, so a slow machine gets
 * the same faults at the same points of the run: every `killEvery` finished scenarios a random live
 * worker process is SIGKILLed and, after a random pause, a new one starts on its host; once a third
 * has finished the API process is SIGKILLed and started again; at two thirds PostgreSQL stops and
 * starts (`pg_ctl -m fast`: sessions are cut, the outage shorter than the workers' lease). Ends when no
 * scenario is QUEUED, PENDING or RUNNING.
 */
export interface ChaosReport {
  workerKills: number;
  apiRestarts: number;
  databaseRestarts: number;
  counts: Record<string, number>;
}

const ACTIVE = ['QUEUED', 'PENDING', 'RUNNING'];

export async function runWithChaos(
  cluster: Cluster,
  total: number,
  options: { killEvery: number; timeoutMs: number },
): Promise<ChaosReport> {
  const report: ChaosReport = { workerKills: 0, apiRestarts: 0, databaseRestarts: 0, counts: {} };
  const restarts: Promise<unknown>[] = [];
  let nextKill = options.killEvery;
  const deadline = Date.now() + options.timeoutMs; // a bound for a loaded machine, not an expectation
  for (;;) {
    let counts: Record<string, number>;
    try {
      counts = await stateCounts(cluster.localDatabaseUrl);
    } catch {
      await sleep(250); // the database is restarting
      continue;
    }
    report.counts = counts;
    const finished = total - ACTIVE.reduce((sum, state) => sum + (counts[state] ?? 0), 0);
    if (finished >= total) break;
    if (Date.now() > deadline) throw new Error(`scenarios still active: ${JSON.stringify(counts)}`);

    if (finished >= nextKill) {
      nextKill += options.killEvery;
      const live = cluster.workers.filter((w) => !w.process.exited);
      const victim = live[Math.floor(Math.random() * live.length)];
      if (victim) {
        await victim.process.stop('SIGKILL');
        report.workerKills += 1;
        restarts.push(sleep(300 + Math.random() * 2500).then(() => restartWorker(cluster, victim.host)));
      }
    }
    if (report.apiRestarts === 0 && finished >= total / 3) {
      await cluster.restartApi('SIGKILL');
      report.apiRestarts += 1;
    }
    if (report.databaseRestarts === 0 && finished >= (2 * total) / 3) {
      await cluster.postgres.stop();
      await cluster.postgres.start();
      report.databaseRestarts += 1;
    }
    await sleep(200);
  }
  await Promise.all(restarts);
  return report;
}

/** A worker that starts while the database is down exits with its error: start it again. */
async function restartWorker(cluster: Cluster, host: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await cluster.startWorker(host);
      return;
    } catch (error) {
      if (attempt === 5) throw error;
      await sleep(1000);
    }
  }
}
