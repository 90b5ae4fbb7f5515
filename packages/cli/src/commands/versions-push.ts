import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BuiltImage, buildImage, RegistryPushClient, splitCommand } from '@hindsight/platform';
import { bundlePythonStrategy } from './bundle-python.ts';
import { BUNDLE_FILE, bundleStrategy } from './bundle-strategy.ts';

export interface VersionsPushFlags {
  /** The strategy a new version is created in (with an API key); or `repository` and `token` below. */
  strategy?: string;
  /**
   * An existing version's repository (`<host>/v/<versionId>`) and the access token its creation
   * returned: the image is pushed into that version instead of a new one (no API key needed).
   */
  repository?: string;
  token?: string;
  cmd?: string;
  /**
   * An SDK strategy in the folder: a TypeScript or JavaScript module is bundled and run with node
   * (bundle-strategy.ts); a `.py` file gets the Python SDK beside it, run with python3 (bundle-python.ts).
   */
  bundle?: string;
  env?: string[];
  workdir?: string;
  label?: string;
  description?: string;
  url?: string;
  apiKey?: string;
}

const usage = (message: string): never => {
  console.error(`hindsight: ${message}`);
  process.exit(2);
};

const fail = (message: string): never => {
  console.error(`hindsight: ${message}`);
  process.exit(1);
};

interface CreatedVersion {
  data: { versionId: string; strategyId: string };
  repositoryUrl: string;
  accessToken: string;
}

async function createVersion(baseUrl: string, flags: VersionsPushFlags): Promise<CreatedVersion> {
  const body = {
    ...(flags.label !== undefined && { label: flags.label }),
    ...(flags.description !== undefined && { description: flags.description }),
  };
  let response: Response;
  try {
    response = await fetch(
      new URL(`/v1/strategies/${encodeURIComponent(flags.strategy ?? '')}/versions`, baseUrl),
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': flags.apiKey ?? '' },
        body: JSON.stringify(body),
      },
    );
  } catch (error) {
    return fail(
      `cannot reach the platform at ${baseUrl} (${(error as Error).cause ?? (error as Error).message}); set --url or HINDSIGHT_URL.`,
    );
  }
  const payload = (await response.json().catch(() => ({}))) as Partial<CreatedVersion> & {
    error?: { code: string; message: string };
  };
  if (response.status !== 201 || !payload.data) {
    return fail(
      `creating the version failed: ${response.status} ${payload.error?.code ?? ''} ${payload.error?.message ?? ''}`.trim(),
    );
  }
  return payload as CreatedVersion;
}

/** `--repository` with `--token`: the version to push into; `--strategy` (a new version) otherwise. */
function existingVersion(
  flags: VersionsPushFlags,
): { repositoryUrl: string; host: string; versionId: string; token: string } | undefined {
  const into = flags.repository !== undefined || flags.token !== undefined;
  if (into && flags.strategy !== undefined)
    usage('give --strategy (a new version) or --repository with --token (an existing one), not both.');
  if (!into) {
    if (flags.strategy === undefined)
      usage(
        'give --strategy <id> (a new version), or --repository and --token of a version awaiting its image.',
      );
    return undefined;
  }
  if (!flags.repository || !flags.token)
    usage(
      '--repository and --token go together: the repositoryUrl and accessToken the version was created with.',
    );
  const match = /^([^/\s]+)\/v\/([0-9a-f-]{36})$/.exec(flags.repository ?? '');
  if (!match?.[1] || !match[2])
    usage(
      `--repository: "${flags.repository}" is not a version repository such as 127.0.0.1:8000/v/<versionId>.`,
    );
  return {
    repositoryUrl: flags.repository ?? '',
    host: match?.[1] ?? '',
    versionId: match?.[2] ?? '',
    token: flags.token ?? '',
  };
}

/**
 * `hindsight versions push --strategy ID DIR --cmd "python3 main.py"`: builds a one-layer image of DIR
 * (deterministic: the same folder gives the same digest), creates a version, and pushes the image to
 * the platform's registry with the version's accessToken. No Docker needed. `--bundle strategy.ts`
 * or `--bundle strategy.py` instead of `--cmd` packs an SDK strategy so that it runs as it does locally.
 */
export async function runVersionsPush(dir: string, flags: VersionsPushFlags): Promise<void> {
  const existing = existingVersion(flags);
  const baseUrl = flags.url ?? (existing ? `http://${existing.host}` : 'http://127.0.0.1:8000');
  if (!existing && !flags.apiKey)
    usage('--api-key (or HINDSIGHT_API_KEY) is required: an API key of the strategy owner.');
  try {
    new URL(baseUrl);
  } catch {
    usage(`--url: "${baseUrl}" is not a URL such as http://127.0.0.1:8000.`);
  }
  const folder = resolve(dir);
  let isDirectory = false;
  try {
    isDirectory = statSync(folder).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) usage(`${dir} is not a directory.`);
  if (flags.cmd === undefined && flags.bundle === undefined) {
    usage(
      'give the entrypoint with --cmd (e.g. --cmd "python3 main.py"), or --bundle <module> for an SDK strategy.',
    );
  }
  const python = flags.bundle?.endsWith('.py') === true;
  let cmd: string[] = flags.bundle === undefined || python ? [] : ['node', BUNDLE_FILE];
  if (flags.cmd !== undefined) {
    try {
      cmd = splitCommand(flags.cmd);
    } catch (error) {
      usage(`--cmd: ${(error as Error).message}.`);
    }
    if (cmd.length === 0)
      usage('--cmd: the command is empty; give the entrypoint, e.g. --cmd "python3 main.py".');
  }

  const scratch = mkdtempSync(join(tmpdir(), 'hindsight-push-'));
  let image: BuiltImage | undefined;
  try {
    let contents = folder;
    if (flags.bundle !== undefined) {
      contents = join(scratch, 'bundle');
      try {
        if (python) {
          const pythonCmd = bundlePythonStrategy(folder, flags.bundle, contents);
          if (flags.cmd === undefined) cmd = pythonCmd;
        } else await bundleStrategy(join(folder, flags.bundle), contents);
      } catch (error) {
        return usage(`--bundle: ${(error as Error).message}`);
      }
    }
    try {
      image = await buildImage(
        { dir: contents, cmd, env: flags.env ?? [], ...(flags.workdir && { workingDir: flags.workdir }) },
        join(scratch, 'layer.tar.gz'),
      );
    } catch (error) {
      return usage(`cannot build the image: ${(error as Error).message}`);
    }
    const version = existing
      ? {
          data: { versionId: existing.versionId, strategyId: undefined },
          repositoryUrl: existing.repositoryUrl,
          accessToken: existing.token,
        }
      : await createVersion(baseUrl, flags);
    const { versionId } = version.data;
    const repository = version.repositoryUrl.slice(version.repositoryUrl.indexOf('/') + 1);
    const client = new RegistryPushClient({ baseUrl, repository, accessToken: version.accessToken });
    let digest: string;
    try {
      digest = (await client.pushImage(image)).digest;
    } catch (error) {
      return fail(
        existing
          ? `the image push into version ${versionId} failed (${(error as Error).message}); the version stays awaiting_push while its token is valid.`
          : `version ${versionId} was created but its image push failed (${(error as Error).message}); the version stays awaiting_push: run the command again to create a new one.`,
      );
    }
    console.log(
      [
        version.data.strategyId
          ? `Pushed version ${versionId} of strategy ${version.data.strategyId}.`
          : `Pushed version ${versionId}.`,
        `  Digest:  ${digest}`,
        `  Image:   ${version.repositoryUrl}@${digest}`,
        `  Layer:   ${image.layer.size} bytes (gzip), ${image.layer.digest}`,
        `  Command: ${JSON.stringify(cmd)} in ${flags.workdir ?? '/app'}`,
      ].join('\n'),
    );
  } finally {
    await image?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
}
