/**
 * One strategy (/strategies/:strategyId): its name and description (editable), archiving (after a
 * confirmation; an archived strategy is read-only), and its versions: create one and get the push
 * commands with its one-time access token filled in, list them with their image status, launch a run
 * of a ready one, evict an image.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { type PageResult, useCursorList } from '../components/cursor-list.ts';
import { StrategyStatus } from '../components/strategy-badges.tsx';
import {
  type CreatedVersion,
  StrategyNewVersion,
  StrategyVersionForm,
} from '../components/strategy-new-version.tsx';
import { StrategyCliCommand } from '../components/strategy-push-commands.tsx';
import { StrategyVersions, type Version } from '../components/strategy-versions.tsx';
import { formatInstant } from '../format.ts';
import './strategies.css';

type Strategy = components['schemas']['Strategy'];

const PAGE_SIZE = 50;

export function StrategyPage() {
  const { strategyId = '' } = useParams();
  const location = useLocation();
  const [strategy, setStrategy] = useState<Strategy | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedVersion | null>(null);
  const notice = (location.state as { notice?: string } | null)?.notice;

  const fetchVersions = useCallback(
    async (after?: string): Promise<PageResult<Version>> => {
      const { data, error } = await api.GET('/v1/strategies/{strategy_id}/versions', {
        params: {
          path: { strategy_id: strategyId },
          query: { limit: PAGE_SIZE, ...(after && { cursor: after }) },
        },
      });
      return data
        ? { items: data.data, nextCursor: data.nextCursor }
        : { error: errorMessage(error, 'Could not load the versions.') };
    },
    [strategyId],
  );
  const {
    items: versions,
    setItems: setVersions,
    cursor,
    error: versionsError,
    loadMore: loadMoreVersions,
  } = useCursorList(fetchVersions);

  useEffect(() => {
    let live = true;
    setStrategy(null);
    setCreated(null);
    void (async () => {
      const { data, error } = await api.GET('/v1/strategies/{strategy_id}', {
        params: { path: { strategy_id: strategyId } },
      });
      if (!live) return;
      if (!data) {
        setLoadError(errorMessage(error, 'Could not load the strategy.'));
        return;
      }
      setLoadError(null);
      setStrategy(data.data);
      document.title = `${data.data.name} · Strategies · Hindsight`;
    })();
    return () => {
      live = false;
    };
  }, [strategyId]);

  if (loadError) {
    return (
      <section>
        <h1>Strategy</h1>
        <p className="error" role="alert">
          {loadError}
        </p>
        <p>
          <Link to="/strategies">Back to strategies</Link>
        </p>
      </section>
    );
  }
  if (!strategy) {
    return (
      <section>
        <h1>Strategy</h1>
        <p role="status">Loading…</p>
      </section>
    );
  }

  const archived = strategy.status === 'archived';
  const replaceVersion = (version: Version) =>
    setVersions((shown) => shown?.map((v) => (v.versionId === version.versionId ? version : v)) ?? null);

  return (
    <section className="strategies-page">
      <p className="config-back">
        <Link to="/strategies">← Strategies</Link>
      </p>
      <div className="strategies-title">
        <h1>{strategy.name}</h1>
        <StrategyStatus status={strategy.status} />
      </div>
      {strategy.description && <p className="strategies-description">{strategy.description}</p>}
      <p className="lead">
        Created {formatInstant(strategy.createdAt)} · updated {formatInstant(strategy.updatedAt)} · id{' '}
        <code>{strategy.strategyId}</code>
      </p>
      {notice && !archived && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {archived ? (
        <p className="strategies-archived" role="note">
          This strategy is archived: it is read-only and takes no new versions. Its versions stay listed, and
          their images can still be evicted to free space.
        </p>
      ) : (
        <StrategyDetails key={`details-${strategy.strategyId}`} strategy={strategy} onSaved={setStrategy} />
      )}

      <h2>Versions</h2>
      {!archived && (
        <>
          <StrategyVersionForm
            strategyId={strategy.strategyId}
            onCreated={(version) => {
              setCreated(version);
              setVersions((shown) => [version.data, ...(shown ?? [])]);
            }}
          />
          {created && <StrategyNewVersion created={created} onDismiss={() => setCreated(null)} />}
          <details className="strategies-cli">
            <summary>Or build and push a folder with the CLI</summary>
            <p>
              <code>hindsight versions push</code> packs a folder into an image without Docker, creates a new
              version and pushes to it in one step (it cannot push into a version made here).
            </p>
            <StrategyCliCommand strategyId={strategy.strategyId} />
          </details>
        </>
      )}
      {versionsError && (
        <p className="error" role="alert">
          {versionsError}
        </p>
      )}
      {!versions && !versionsError && <p role="status">Loading versions…</p>}
      {versions && versions.length === 0 && <p>No versions yet.</p>}
      {versions && versions.length > 0 && (
        <StrategyVersions
          key={`versions-${strategy.strategyId}`}
          strategyId={strategy.strategyId}
          versions={versions}
          onChanged={replaceVersion}
        />
      )}
      {cursor && (
        <button type="button" className="secondary strategies-more" onClick={loadMoreVersions}>
          Load more versions
        </button>
      )}
    </section>
  );
}

/** Name and description (PUT), and archiving (DELETE) after a confirmation. */
function StrategyDetails({
  strategy,
  onSaved,
}: {
  strategy: Strategy;
  onSaved: (strategy: Strategy) => void;
}) {
  const navigate = useNavigate();
  const [name, setName] = useState(strategy.name);
  const [description, setDescription] = useState(strategy.description ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    const { data, error: failure } = await api.PUT('/v1/strategies/{strategy_id}', {
      params: { path: { strategy_id: strategy.strategyId } },
      body: { name, description },
    });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not save the strategy.'));
      return;
    }
    setSaved(true);
    onSaved(data.data);
  };

  const archive = async () => {
    setError(null);
    const { error: failure, response } = await api.DELETE('/v1/strategies/{strategy_id}', {
      params: { path: { strategy_id: strategy.strategyId } },
    });
    if (!response.ok) {
      setError(errorMessage(failure, 'Could not archive the strategy.'));
      return;
    }
    const { data } = await api.GET('/v1/strategies/{strategy_id}', {
      params: { path: { strategy_id: strategy.strategyId } },
    });
    if (data) onSaved(data.data);
    else navigate('/strategies', { state: { notice: `Strategy “${strategy.name}” archived.` } });
  };

  return (
    <form className="strategies-form" onSubmit={save} noValidate>
      <h2>Details</h2>
      <label htmlFor="strategy-name">Name</label>
      <input id="strategy-name" value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="strategy-description">Description</label>
      <textarea
        id="strategy-description"
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <div className="row strategies-form-actions">
        <button type="submit" disabled={busy}>
          Save changes
        </button>
        <ConfirmButton
          label="Archive"
          question="Archive this strategy? It becomes read-only for good."
          confirmLabel="Yes, archive"
          onConfirm={archive}
        />
      </div>
      {saved && <p role="status">Saved.</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
