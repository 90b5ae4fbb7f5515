/**
 * Creating a version on the strategy page: the form (label, description), then what to do next. The
 * create response is the only place the repository's access token appears (valid 60 minutes; the API
 * cannot issue another), so it is shown here once, inside ready-to-paste push commands.
 */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api/client.ts';
import { formatInstant } from '../format.ts';
import { CopyButton } from './copy-button.tsx';
import { StrategyPushCommands } from './strategy-push-commands.tsx';
import type { Version } from './strategy-versions.tsx';

export interface CreatedVersion {
  data: Version;
  repositoryUrl: string;
  accessToken: string;
  accessTokenExpiresAt: string;
}

export function StrategyVersionForm({
  strategyId,
  onCreated,
}: {
  strategyId: string;
  onCreated: (created: CreatedVersion) => void;
}) {
  const [label, setLabel] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/v1/strategies/{strategy_id}/versions', {
      params: { path: { strategy_id: strategyId } },
      body: { ...(label !== '' && { label }), ...(description !== '' && { description }) },
    });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not create the version.'));
      return;
    }
    setLabel('');
    setDescription('');
    onCreated(data);
  };

  return (
    <form className="strategies-form" onSubmit={submit} noValidate>
      <h3>Create a version</h3>
      <p className="config-hint">
        A version is a container image. Create it here, then push its image with the commands shown next.
      </p>
      <label htmlFor="version-label">Version label</label>
      <input
        id="version-label"
        value={label}
        placeholder="e.g. v1.2"
        onChange={(e) => setLabel(e.target.value)}
      />
      <label htmlFor="version-description">Version description</label>
      <textarea
        id="version-description"
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <button type="submit" disabled={busy}>
        Create version
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function StrategyNewVersion({
  created,
  onDismiss,
}: {
  created: CreatedVersion;
  onDismiss: () => void;
}) {
  const name = created.data.label ?? created.data.versionId;
  // Focus goes to the heading rather than a live region reading out the token and every command.
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per created version.
  useEffect(() => {
    heading.current?.focus();
  }, [created.data.versionId]);
  return (
    <section className="notice strategies-new-version" aria-labelledby="new-version-title">
      <h3 id="new-version-title" tabIndex={-1} ref={heading}>
        Version {name} created: push its image
      </h3>
      <p>
        <strong>The access token is shown only this once.</strong> It lets you push to this version&apos;s
        repository until {formatInstant(created.accessTokenExpiresAt)} (60 minutes); the API cannot issue
        another, so if it expires before you push, create a new version.
      </p>
      <dl className="strategies-facts">
        <dt>Repository</dt>
        <dd>
          <code data-testid="new-version-repository">{created.repositoryUrl}</code>
        </dd>
        <dt>Access token</dt>
        <dd className="strategies-token">
          <code className="secret" data-testid="new-version-token">
            {created.accessToken}
          </code>
          <CopyButton text={created.accessToken} label="Copy access token" />
        </dd>
      </dl>
      <StrategyPushCommands repositoryUrl={created.repositoryUrl} token={created.accessToken} />
      <button type="button" className="secondary" onClick={onDismiss}>
        I have pushed or stored it
      </button>
    </section>
  );
}
