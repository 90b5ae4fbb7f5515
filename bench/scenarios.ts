import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildImage,
  issueVersionAccessToken,
  RegistryPushClient,
  readSettings,
  startPlatform,
} from '@hindsight/platform';

/**
 * 100 short scenarios through the queue with 2 workers (one batch call with a 100-cell env grid), on
 * the embedded store with the local executor: scenarios per minute, and the platform's overhead per
 * scenario, i.e. the time a worker holds the scenario (claim to terminal state: image preparation,
 * data fingerprint, gateway start, process start and stop, result encoding and storage) minus the
 * strategy's own run, which the strategy reports on stdout (from its first statement, before its imports,
 * to its last). The interpreter's own start before the first statement (~20 ms for python3) counts as
 * platform overhead here.
 */
const SCENARIOS = Number(process.env.BENCH_SCENARIOS ?? 100);
const WORKERS = 2;

const STRATEGY = `
import time
print("T0", time.time_ns() // 1_000_000, flush=True)
import asyncio, json, os
import websockets
async def main():
    headers = {"X-API-Key": os.environ["PLATFORM_GATEWAY_API_KEY"]}
    try:
        ws = await websockets.connect(os.environ["PROXY_WS_URL"], additional_headers=headers)
    except TypeError:
        ws = await websockets.connect(os.environ["PROXY_WS_URL"], extra_headers=headers)
    async for message in ws:
        events = json.loads(message)
        events = events if isinstance(events, list) else [events]
        if any(e.get("event") == "DISCONNECTING" for e in events):
            await ws.close()
            break
        seqs = [e["seq"] for e in events if "seq" in e]
        if seqs:
            await ws.send(json.dumps({"type": "event_ack", "last_seq": seqs[-1]}))
asyncio.run(main())
print("T1", time.time_ns() // 1_000_000, flush=True)
`;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? 0;

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hindsight-bench-scenarios-'));
  chmodSync(dataDir, 0o755);
  const platform = await startPlatform(
    readSettings(process.env, {
      port: '0',
      dataDir,
      workers: String(WORKERS),
      scenarioQuota: String(SCENARIOS),
    }),
    { logLevel: process.env.BENCH_LOG_LEVEL ?? 'silent' },
  );
  try {
    const user = await platform.ctx.users.create('scenarios@example.com', 'bench-password');
    if (!user) throw new Error('could not create the bench user');
    const { key } = await platform.ctx.apiKeys.create(user.id, 'bench');
    const strategy = await platform.ctx.strategies.create(user.id, user.id, { name: 'queue bench' });
    const version = await platform.ctx.versions.create(user.id, strategy.strategyId, {});
    const folder = mkdtempSync(join(dataDir, 'strategy-'));
    writeFileSync(join(folder, 'main.py'), STRATEGY);
    const image = await buildImage(
      { dir: folder, cmd: ['python3', 'main.py'] },
      join(dataDir, 'layer.tar.gz'),
    );
    const access = await issueVersionAccessToken(platform.ctx.signingSecret, version.versionId);
    await new RegistryPushClient({
      baseUrl: platform.url,
      repository: `v/${version.versionId}`,
      accessToken: access.token,
    }).pushImage(image);

    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const base = `${platform.url}/v1/strategies/${strategy.strategyId}/scenarios`;
    const started = performance.now();
    const response = await fetch(`${base}/batch`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        strategyVersionId: version.versionId,
        base: {
          subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }],
          startTime: '2024-01-02T00:00:00Z',
          endTime: '2024-01-02T01:00:00Z',
        },
        envGrid: { RUN: Array.from({ length: SCENARIOS }, (_, i) => String(i)) },
      }),
    });
    const batch = (await response.json()) as { data: { scenarioId: string }[]; dropped: number };
    if (response.status !== 201 || batch.dropped !== 0) {
      throw new Error(`batch: ${response.status} ${JSON.stringify(batch).slice(0, 300)}`);
    }
    const ids = batch.data.map((s) => s.scenarioId);
    const pending = new Set(ids);
    const records = new Map<string, { state: string; startedAt: string; finishedAt: string }>();
    while (pending.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const id of [...pending]) {
        const scenario = (await (await fetch(`${platform.url}/v1/scenarios/${id}`, { headers })).json()) as {
          data: { state: string; startedAt: string; finishedAt: string; errorMessage?: string };
        };
        if (['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.data.state)) {
          if (scenario.data.state !== 'COMPLETE') {
            throw new Error(`scenario ${id} ended ${scenario.data.state}: ${scenario.data.errorMessage}`);
          }
          records.set(id, scenario.data);
          pending.delete(id);
        }
      }
    }
    const elapsedMinutes = (performance.now() - started) / 60_000;

    const overheads: number[] = [];
    for (const id of ids) {
      const log = await (await fetch(`${base}/${id}/logs`, { headers })).text();
      const t0 = Number(/T0 (\d+)/.exec(log)?.[1]);
      const t1 = Number(/T1 (\d+)/.exec(log)?.[1]);
      const record = records.get(id);
      if (!record || !Number.isFinite(t0) || !Number.isFinite(t1)) {
        const stderr = await (await fetch(`${base}/${id}/logs?stream=stderr`, { headers })).text();
        throw new Error(`no timings for ${id}: ${log} ${stderr}`);
      }
      const held = Date.parse(record.finishedAt) - Date.parse(record.startedAt);
      overheads.push(held - (t1 - t0));
    }
    console.log(
      `BENCH platform_scenarios_per_minute ${(SCENARIOS / elapsedMinutes).toFixed(0)} scenarios/min`,
    );
    console.log(`BENCH platform_scenario_overhead_median ${percentile(overheads, 0.5).toFixed(0)} ms`);
    console.log(`BENCH platform_scenario_overhead_p90 ${percentile(overheads, 0.9).toFixed(0)} ms`);
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
