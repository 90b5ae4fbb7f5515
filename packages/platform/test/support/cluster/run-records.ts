import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * What the multi-host test reads besides the API: the scenarios table straight from PostgreSQL (it
 * answers while the API host is down), and the workers' JSON log lines, where each run that reached
 * the end of its replay says so once (`scenario run ended`, outcome `complete`, with its scenarioId),
 * whether or not its completion could then be recorded.
 */
export async function stateCounts(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    const result = await client.query<{ state: string; count: string }>(
      'SELECT state, count(*) AS count FROM scenarios GROUP BY state',
    );
    return Object.fromEntries(result.rows.map((row) => [row.state, Number(row.count)]));
  } finally {
    await client.end();
  }
}

/** Per scenario, how many runs reached the end of the replay, over every worker log in `logDir`. */
export function completedRuns(logDir: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of readdirSync(logDir).filter((n) => n.includes('-worker-'))) {
    for (const line of readFileSync(join(logDir, name), 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      let entry: { msg?: string; outcome?: string; scenarioId?: string };
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // the last line of a killed process may be cut
      }
      if (entry.msg === 'scenario run ended' && entry.outcome === 'complete' && entry.scenarioId) {
        counts.set(entry.scenarioId, (counts.get(entry.scenarioId) ?? 0) + 1);
      }
    }
  }
  return counts;
}
