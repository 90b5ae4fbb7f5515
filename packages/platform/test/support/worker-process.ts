import { readSettings, runWorker } from '@hindsight/platform';

/**
 * A scenario worker in a process of its own, as `hindsight worker` runs it (settings from the
 * environment); it prints `ready <worker id> [<operations URL>]` once it claims, so a test can kill it
 * mid-run.
 */
const settings = readSettings(process.env);
const running = await runWorker(settings, { concurrency: 1, logLevel: 'warn' });
process.stdout.write(
  `ready ${running.worker.id}${running.operationsUrl ? ` ${running.operationsUrl}` : ''}\n`,
);
process.once('SIGTERM', () => {
  void running.close().then(() => process.exit(0));
});
