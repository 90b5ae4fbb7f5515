import { posix } from 'node:path';
import { ImageRunError } from './executor.ts';

/**
 * What running an image needs from its configuration (the OCI image config's `config` object, which
 * Docker's image inspect also returns): the environment, the command line and the working directory.
 */
export interface ImageConfigFields {
  Env?: string[] | null;
  Entrypoint?: string[] | string | null;
  Cmd?: string[] | string | null;
  WorkingDir?: string | null;
}

export interface ImageCommand {
  /** `Env` as a map; a later entry for a key wins, as in Docker. */
  env: Record<string, string>;
  /** `Entrypoint` followed by `Cmd`, exec form (no shell runs it). */
  argv: string[];
  /** Absolute; `/` when the image names none. */
  workingDir: string;
}

/** The `PATH` a process gets when neither the image nor the run sets one (Docker's default). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `KEY=value` entries as a map (a later entry for a key wins; an entry without `=` is left out). */
export function envFromEntries(entries: readonly string[]): Record<string, string> {
  const env = new Map<string, string>();
  for (const entry of entries) {
    const at = entry.indexOf('=');
    if (at > 0) env.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return Object.fromEntries(env);
}

/** Reads the command of an image; an image with neither `Entrypoint` nor `Cmd` cannot run. */
export function imageCommand(config: ImageConfigFields | undefined, image: string): ImageCommand {
  const list = (value: string[] | string | null | undefined) =>
    typeof value === 'string' ? [value] : (value ?? []);
  const argv = [...list(config?.Entrypoint), ...list(config?.Cmd)];
  if (argv.length === 0 || argv[0] === '') {
    throw new ImageRunError(
      `the image ${image} has no command: its config sets neither Entrypoint nor Cmd (set CMD in the Dockerfile, or --cmd with hindsight versions push)`,
    );
  }
  const dir = config?.WorkingDir ? posix.normalize(config.WorkingDir) : '/';
  return {
    env: envFromEntries(config?.Env ?? []),
    argv,
    workingDir: dir.startsWith('/') ? dir : `/${dir}`,
  };
}

/** The OCI architecture name of this machine (`amd64` on x64), which images must match. */
export const hostArchitecture = (arch: string = process.arch): string =>
  ({ x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64' })[arch] ?? arch;

/** Refuses an image built for another OS or architecture (fields absent: accepted). */
export function checkPlatform(
  platform: { os?: string | null; architecture?: string | null },
  image: string,
  arch = hostArchitecture(),
): void {
  if (platform.os && platform.os !== 'linux') {
    throw new ImageRunError(`the image ${image} is for ${platform.os}; only linux images can run`);
  }
  if (platform.architecture && platform.architecture !== arch) {
    throw new ImageRunError(
      `the image ${image} is for ${platform.architecture}; this worker runs linux/${arch} images`,
    );
  }
}
