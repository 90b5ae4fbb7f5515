import { readSettings, runWorker } from '@hindsight/platform';
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
  let running: Awaited<ReturnType<typeof runWorker>>;
  try {
    const settings = readSettings(process.env, {
      ...(flags.dataDir && { dataDir: flags.dataDir }),
      ...(flags.databaseUrl && { databaseUrl: flags.databaseUrl }),
      ...(flags.secret && { secret: flags.secret }),
      ...(flags.registryUrl && { registryUrl: flags.registryUrl }),
      ...(flags.executor && { executor: flags.executor }),
      ...(flags.concurrency && { workers: flags.concurrency }),
    });
    running = await runWorker(settings, {
      concurrency: Math.max(1, settings.runner.workers),
      logLevel: process.env.HINDSIGHT_LOG_LEVEL ?? 'info',
    });
    console.log(
      `Hindsight worker ${running.worker.id} is claiming scenarios (executor ${settings.runner.executor}, ${Math.max(1, settings.runner.workers)} at once).`,
    );
  } catch (error) {
    failAndExit(error);
  }
  const stop = async () => {
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
