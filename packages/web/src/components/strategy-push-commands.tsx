/**
 * How to push a version's image, as commands to paste: the CLI (a folder built into an image, no
 * Docker), docker and skopeo, each into the version's repository with its access token (the forms of
 * docs/registry.md); and the CLI's other form, which creates a version of its own. Each block has its
 * copy button.
 */
import { CopyButton } from './copy-button.tsx';

/** What stands in for a token the page no longer has: the API shows it once and cannot mint another. */
export const TOKEN_PLACEHOLDER = '<accessToken shown when the version was created>';

/** `<host>:<port>/v/<versionId>` on the host the app talks to, as the API builds `repositoryUrl`. */
export const repositoryUrlOf = (versionId: string): string => `${window.location.host}/v/${versionId}`;

export function dockerCommands(repositoryUrl: string, token: string): string {
  const host = repositoryUrl.slice(0, repositoryUrl.indexOf('/'));
  return [
    `docker login ${host} -u any -p "${token}"`,
    `docker tag my-strategy "${repositoryUrl}:latest" && docker push "${repositoryUrl}:latest"`,
  ].join('\n');
}

export function skopeoCommand(repositoryUrl: string, token: string): string {
  return [
    `skopeo copy --dest-tls-verify=false --dest-creds "any:${token}" \\`,
    `  docker-archive:my-strategy.tar "docker://${repositoryUrl}:latest"`,
  ].join('\n');
}

export function cliIntoVersionCommand(repositoryUrl: string, token: string, platformUrl: string): string {
  return [
    `npx hindsight versions push --url ${platformUrl} \\`,
    `  --repository ${repositoryUrl} --token "${token}" \\`,
    '  ./my-strategy --cmd "python3 main.py"',
  ].join('\n');
}

export function cliCommand(strategyId: string, platformUrl: string): string {
  return [
    'export HINDSIGHT_API_KEY=<an API key of yours, from the API keys page>',
    `npx hindsight versions push --strategy ${strategyId} --url ${platformUrl} --label v2 \\`,
    '  ./my-strategy --cmd "python3 main.py"',
  ].join('\n');
}

function CommandBlock({ title, command, copyLabel }: { title: string; command: string; copyLabel: string }) {
  return (
    <div className="strategies-command">
      <div className="strategies-command-head">
        <h4>{title}</h4>
        <CopyButton text={command} label={copyLabel} />
      </div>
      <pre>
        <code>{command}</code>
      </pre>
    </div>
  );
}

/** Docker and skopeo commands for one version's repository; without a token, a placeholder says where it came from. */
export function StrategyPushCommands({
  repositoryUrl,
  token,
}: {
  repositoryUrl: string;
  token?: string | undefined;
}) {
  const secret = token ?? TOKEN_PLACEHOLDER;
  return (
    <div className="strategies-commands">
      <CommandBlock
        title="Hindsight CLI (a folder, no Docker needed)"
        command={cliIntoVersionCommand(repositoryUrl, secret, window.location.origin)}
        copyLabel="Copy CLI push command"
      />
      <CommandBlock
        title="Docker"
        command={dockerCommands(repositoryUrl, secret)}
        copyLabel="Copy docker commands"
      />
      <CommandBlock
        title="skopeo (no Docker daemon)"
        command={skopeoCommand(repositoryUrl, secret)}
        copyLabel="Copy skopeo command"
      />
      <p className="config-hint">
        <code>./my-strategy</code> is your strategy&apos;s folder for the CLI (<code>--cmd</code> is how it
        starts; <code>--bundle strategy.py</code> or <code>--bundle strategy.ts</code> packs an SDK strategy
        instead); <code>my-strategy</code> is your local image (for skopeo, saved with{' '}
        <code>docker save my-strategy -o my-strategy.tar</code>). Any tag works; the first image pushed
        becomes the version&apos;s image for good. Docker accepts plain HTTP only for registries on
        127.0.0.0/8; for another host list it under <code>insecure-registries</code>.
      </p>
    </div>
  );
}

/** The CLI alternative: one command that packs a folder, creates a new version and pushes it. */
export function StrategyCliCommand({ strategyId }: { strategyId: string }) {
  return (
    <CommandBlock
      title="Hindsight CLI (no Docker needed)"
      command={cliCommand(strategyId, window.location.origin)}
      copyLabel="Copy CLI command"
    />
  );
}
