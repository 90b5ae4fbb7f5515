/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME` runs one. Each prints lines
 * `BENCH <name> <value> <unit>`, the figures the README's Performance section quotes.
 */
import { spawnSync } from 'node:child_process';
import { missingGatewayV8Flags, tuneJitForBacktests } from '@hindsight/gateway';

// The process runs as the CLI's do (the platform, its workers, the standalone gateway).
tuneJitForBacktests();

const benchmarks: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  platform: () => import('./platform.ts'),
  startup: () => import('./startup.ts'),
  engine: () => import('./engine.ts'),
  gateway: () => import('./gateway.ts'),
  marketdata: async () => ({
    run: async () => {
      await (await import('./marketdata.ts')).run();
      await (await import('./import.ts')).run();
    },
  }),
};

function gatewayFlagsMissing(): string[] {
  try {
    return missingGatewayV8Flags(process.env);
  } catch (error) {
    console.error(`bench: ${(error as Error).message}`);
    process.exit(2);
  }
}

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${Object.keys(benchmarks).join(', ')}`);
  process.exit(2);
}
for (const name of requested.length > 0 ? requested : Object.keys(benchmarks)) {
  const loader = benchmarks[name];
  if (!loader) continue;
  // The gateway benchmark hosts its gateways in-process: it runs with the V8 flags that `hindsight
  // gateway` starts with (packages/cli/src/relaunch.ts), in a child of its own when they are missing.
  const missing = name === 'gateway' ? gatewayFlagsMissing() : [];
  if (missing.length > 0) {
    const args = [...missing, ...process.execArgv, process.argv[1] as string, name];
    const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
    if (status !== 0) process.exit(status ?? 1);
    continue;
  }
  console.log(`# ${name}`);
  await (await loader()).run();
}
