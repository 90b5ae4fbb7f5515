/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME` runs one. Each prints lines
 * `BENCH <name> <value> <unit>`, the figures the README's Performance section quotes.
 */
const benchmarks: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  platform: () => import('./platform.ts'),
  startup: () => import('./startup.ts'),
  engine: () => import('./engine.ts'),
  sdk: () => import('./sdk.ts'),
  gateway: () => import('./gateway.ts'),
  marketdata: async () => ({
    run: async () => {
      await (await import('./marketdata.ts')).run();
      await (await import('./import.ts')).run();
    },
  }),
  web: () => import('./web.ts'),
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available: ${Object.keys(benchmarks).join(', ')}`);
  process.exit(2);
}
for (const name of requested.length > 0 ? requested : Object.keys(benchmarks)) {
  const loader = benchmarks[name];
  if (!loader) continue;
  console.log(`# ${name}`);
  await (await loader()).run();
}
