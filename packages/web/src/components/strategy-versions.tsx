/**
 * The versions table of a strategy page: label, description, image status, digest (short, whole in the
 * title), creation; per version, a link to launch a run (ready ones), the push commands (those awaiting
 * a push; without their token, which the API shows only once) and eviction of the image after a
 * confirmation.
 */
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { formatInstant } from '../format.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { ImageStatusBadge } from './strategy-badges.tsx';
import { repositoryUrlOf, StrategyPushCommands } from './strategy-push-commands.tsx';

export type Version = components['schemas']['Version'];

interface Props {
  strategyId: string;
  versions: Version[];
  onChanged: (version: Version) => void;
}

/** `sha256:0123456789ab…`: enough to tell images apart at a glance. */
const shortDigest = (digest: string): string => {
  const [algorithm, hex = ''] = digest.split(':');
  return `${algorithm}:${hex.slice(0, 12)}…`;
};

const nameOf = (version: Version): string => version.label ?? version.versionId.slice(0, 8);

export function StrategyVersions({ strategyId, versions, onChanged }: Props) {
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const openVersion = versions.find((v) => v.versionId === open && v.imageStatus === 'awaiting_push');

  const evict = async (version: Version) => {
    setError(null);
    const { data, error: failure } = await api.DELETE(
      '/v1/strategies/{strategy_id}/versions/{version_id}/image',
      {
        params: { path: { strategy_id: strategyId, version_id: version.versionId } },
      },
    );
    if (!data) {
      setError(errorMessage(failure, `Could not evict the image of ${nameOf(version)}.`));
      return;
    }
    if (open === version.versionId) setOpen(null);
    onChanged(data.data);
  };

  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="table-wrap strategies-scroll">
        <table className="strategies-table strategies-versions table-cards">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Description</th>
              <th scope="col">Image</th>
              <th scope="col">Digest</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((version) => {
              const name = nameOf(version);
              return (
                <tr key={version.versionId}>
                  <td data-label="Label">
                    {version.label ?? <span className="muted">(no label)</span>}
                    <div className="strategies-id">
                      id <code title={version.versionId}>{version.versionId.slice(0, 8)}</code>
                    </div>
                  </td>
                  <td data-label="Description" className="strategies-wrap">
                    {version.description ?? ''}
                  </td>
                  <td data-label="Image">
                    <ImageStatusBadge status={version.imageStatus} />
                  </td>
                  <td data-label="Digest">
                    {version.imageDigest ? (
                      <code title={version.imageDigest}>{shortDigest(version.imageDigest)}</code>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td data-label="Created" className="strategies-nowrap">
                    {formatInstant(version.createdAt)}
                  </td>
                  <td className="actions">
                    {version.imageStatus !== 'evicted' && (
                      <ConfirmButton
                        label="Evict image"
                        ariaLabel={`Evict image of ${name}`}
                        question={`Delete the image of ${name} for good? The version can never run again.`}
                        confirmLabel="Yes, evict"
                        onConfirm={() => evict(version)}
                      >
                        {version.imageStatus === 'ready' && (
                          <Link
                            to={`/runs?strategyId=${encodeURIComponent(strategyId)}&versionId=${encodeURIComponent(version.versionId)}`}
                            aria-label={`Launch a run of ${name}`}
                          >
                            Launch a run
                          </Link>
                        )}
                        {version.imageStatus === 'awaiting_push' && (
                          <button
                            type="button"
                            className="secondary"
                            aria-expanded={open === version.versionId}
                            {...(open === version.versionId && { 'aria-controls': COMMANDS_ID })}
                            aria-label={`Push commands for ${name}`}
                            onClick={() => setOpen(open === version.versionId ? null : version.versionId)}
                          >
                            Push commands
                          </button>
                        )}
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {openVersion && (
        <PendingPushPanel key={openVersion.versionId} version={openVersion} onClose={() => setOpen(null)} />
      )}
    </>
  );
}

const COMMANDS_ID = 'strategies-pending-push';

/**
 * The push commands of a version still awaiting its image, below the table (a table cell would make
 * every column as wide as the commands). Opening it moves focus to its heading, as it may be far down.
 */
function PendingPushPanel({ version, onClose }: { version: Version; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyed by version in the parent, so this runs once per version opened.
  useEffect(() => {
    heading.current?.focus();
  }, []);
  const name = nameOf(version);
  return (
    <section className="strategies-pending" id={COMMANDS_ID} aria-labelledby={`${COMMANDS_ID}-title`}>
      <h3 id={`${COMMANDS_ID}-title`} tabIndex={-1} ref={heading}>
        Push commands for {name}
      </h3>
      <p>
        The access token was shown once, when {name} was created, and works for 60 minutes. The API cannot
        issue another: if you no longer have it, create a new version.
      </p>
      <StrategyPushCommands repositoryUrl={repositoryUrlOf(version.versionId)} />
      <button type="button" className="secondary" onClick={onClose}>
        Close push commands
      </button>
    </section>
  );
}
