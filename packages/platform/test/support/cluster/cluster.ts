import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PrivatePostgres, startPrivatePostgres } from '../private-postgres.ts';
import { type HostProcess, hindsight, sourceNodeOptions, startHostProcess } from './host-process.ts';
import { createLan, type Lan } from './network.ts';
import { type S3Host, startS3Host } from './s3-host.ts';

/**
 * The platform on several hosts (docs/developing.md, "The multi-host test"): an API host running
 * `hindsight start` with no worker of its own, worker hosts running `hindsight worker` processes,
 * each with its own data dir, an object-store host (s3rver) when `storage` is `s3`, and PostgreSQL (a
 * private cluster) on the machine's side of the LAN. Everything is reached by LAN address, as across
 * machines. Market data: in the bucket with `s3`; else copied from the API host's data dir (where the
 * first start imports the bundled sample) into each worker host's.
 */
export interface ClusterOptions {
  workerHosts: string[];
  storage: 'data-dir' | 's3';
  /** Run the object-store host even when the platform keeps its bytes in data dirs (default: with `s3`). */
  s3Host?: boolean;
  /** Settings every worker process gets (lease, attempts, ...), as environment variables. */
  workerEnv?: Record<string, string>;
  apiEnv?: Record<string, string>;
}

export interface Cluster {
  lan: Lan;
  postgres: PrivatePostgres;
  /** The database as the test reaches it (loopback), for reading the scenarios table directly. */
  localDatabaseUrl: string;
  apiUrl: string;
  admin: { email: string; password: string };
  s3?: S3Host;
  /** The API process now (a restart replaces it). */
  api(): HostProcess;
  restartApi(signal: NodeJS.Signals): Promise<void>;
  /** Starts one more `hindsight worker` on `host`; every one started stays in `workers`. */
  startWorker(host: string, concurrency?: number): Promise<HostProcess>;
  workers: { host: string; process: HostProcess }[];
  /** Every log file written (API, workers, object store), for reading after the run. */
  logDir: string;
  /** Stops everything and removes the LAN and the files; `keepLogs` moves the logs to the temp dir first. */
  dispose(options?: { keepLogs?: boolean }): Promise<void>;
}

const API_PORT = 8000;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const withS3 = options.s3Host ?? options.storage === 's3';
  const hostNames = ['api', ...options.workerHosts, ...(withS3 ? ['s3'] : [])];
  const lan = await createLan(hostNames);
  const root = mkdtempSync(join(tmpdir(), 'hindsight-cluster-'));
  // Strategies run as an unprivileged user, who must reach each host's image cache.
  chmodSync(root, 0o755);
  const logDir = join(root, 'logs');
  mkdirSync(logDir);
  const dataDir = (host: string) => {
    const dir = join(root, host);
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    return dir;
  };
  const started: HostProcess[] = [];
  let postgres: PrivatePostgres | undefined;
  // An interrupted test exits, so that the exit handlers remove the LAN (and every process on it) and
  // stop PostgreSQL; a killed one leaves them to the next run's clean-up (removeLeftoverLans).
  const onSignal = (signal: NodeJS.Signals) => process.exit(signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const dispose = async (disposal: { keepLogs?: boolean } = {}) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await Promise.all(started.map((p) => p.stop('SIGKILL').catch(() => {})));
    await postgres?.dispose();
    await lan.dispose();
    if (disposal.keepLogs) {
      const kept = `${root}-logs`;
      renameSync(logDir, kept);
      console.error(`the cluster's logs are kept in ${kept}`);
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    postgres = await startPrivatePostgres({ listen: { address: lan.rootAddress, clients: lan.cidr } });
    const localDatabaseUrl = postgres.url;
    const url = new URL(postgres.url);
    url.hostname = lan.rootAddress;
    const databaseUrl = url.toString();

    let s3: S3Host | undefined;
    let storageEnv: Record<string, string> = {};
    const s3Host = lan.hosts.s3;
    if (s3Host) {
      s3 = await startS3Host({
        namespace: s3Host.namespace,
        address: s3Host.address,
        directory: dataDir('s3'),
        buckets: ['hindsight'],
        logFile: join(logDir, 's3.log'),
      });
      started.push(s3.process);
    }
    if (s3 && options.storage === 's3') {
      storageEnv = {
        HINDSIGHT_STORAGE_URL: 's3://hindsight/cluster',
        HINDSIGHT_S3_ENDPOINT: s3.endpoint,
        AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      };
    }

    const apiHost = lan.hosts.api as Lan['hosts'][string];
    const apiUrl = `http://${apiHost.address}:${API_PORT}`;
    const secret = randomBytes(24).toString('hex');
    const admin = { email: 'cluster@example.com', password: 'cluster-password' };
    const shared = {
      ...sourceNodeOptions,
      ...storageEnv,
      DATABASE_URL: databaseUrl,
      HINDSIGHT_SECRET: secret,
    };
    const apiDataDir = dataDir('api');
    let starts = 0;
    const startApi = () =>
      startHostProcess({
        label: 'api',
        namespace: apiHost.namespace,
        args: hindsight('start'),
        env: {
          ...shared,
          HINDSIGHT_HOST: apiHost.address,
          HINDSIGHT_PORT: String(API_PORT),
          HINDSIGHT_DATA_DIR: apiDataDir,
          HINDSIGHT_WORKERS: '0',
          HINDSIGHT_ADMIN_EMAIL: admin.email,
          HINDSIGHT_ADMIN_PASSWORD: admin.password,
          HINDSIGHT_LOG_LEVEL: 'warn',
          ...options.apiEnv,
        },
        logFile: join(logDir, `api-${++starts}.log`),
        ready: /API docs:/,
      });
    let api = await startApi();
    started.push(api);

    for (const host of options.workerHosts) {
      const dir = dataDir(host);
      if (options.storage === 'data-dir')
        cpSync(join(apiDataDir, 'market'), join(dir, 'market'), { recursive: true });
    }

    const workers: Cluster['workers'] = [];
    let workerCount = 0;
    return {
      lan,
      postgres,
      localDatabaseUrl,
      apiUrl,
      admin,
      ...(s3 && { s3 }),
      api: () => api,
      async restartApi(signal) {
        await api.stop(signal);
        api = await startApi();
        started.push(api);
      },
      async startWorker(host, concurrency = 1) {
        const namespace = lan.hosts[host]?.namespace;
        if (!namespace) throw new Error(`no host ${host}`);
        workerCount += 1;
        const process = await startHostProcess({
          label: `${host} worker ${workerCount}`,
          namespace,
          args: hindsight('worker'),
          env: {
            ...shared,
            HINDSIGHT_DATA_DIR: join(root, host),
            HINDSIGHT_REGISTRY_URL: apiUrl,
            HINDSIGHT_WORKERS: String(concurrency),
            HINDSIGHT_LOG_LEVEL: 'info',
            ...options.workerEnv,
          },
          logFile: join(logDir, `${host}-worker-${workerCount}.log`),
          ready: /is claiming scenarios/,
        });
        started.push(process);
        workers.push({ host, process });
        return process;
      },
      workers,
      logDir,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
