import { readSettings, runWorker } from '@hindsight/platform';
import { onStopSignal } from '../stop-signals.ts';
import { failAndExit } from './fail.ts';

interface WorkerFlags {
  dataDir?: string;
  databaseUrl?: string;
  secret?: string;
  registryUrl?: string;
  executor?: string;
  concurrency?: string;
}

export async function runWorkerCommand(flags: WorkerFlags): Promise<void> {
  try {
    const settings = readSettings(process.env, {
      ...(flags.dataDir && { dataDir: flags.dataDir }),
      ...(flags.databaseUrl && { databaseUrl: flags.databaseUrl }),
      ...(flags.secret && { secret: flags.secret }),
      ...(flags.registryUrl && { registryUrl: flags.registryUrl }),
      ...(flags.executor && { executor: flags.executor }),
      ...(flags.concurrency && { workers: flags.concurrency }),
    });
    const running = await runWorker(settings, {
      concurrency: Math.max(1, settings.runner.workers),
      logLevel: process.env.HINDSIGHT_LOG_LEVEL ?? 'info',
    });
    // Before the banner: whoever reads it may signal at once. Stops claiming, stops its runs (their
    // strategies and gateways) and fails them `platform`.
    onStopSignal(() => running.close());
    console.log(
      `Hindsight worker ${running.worker.id} is claiming scenarios (executor ${settings.runner.executor}, ${Math.max(1, settings.runner.workers)} at once).`,
    );
  } catch (error) {
    failAndExit(error);
  }
}
