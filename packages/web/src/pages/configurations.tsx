/**
 * The saved configurations (/configurations): name, instruments, window, active flag and creation, a
 * page at a time (cursor), with links to the editor and clone and delete in place. Deleting asks first;
 * the API refuses (409) a configuration bound to a strategy's auto-runs and its message is shown.
 */
import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { type PageResult, useCursorList } from '../components/cursor-list.ts';
import { formatInstant } from '../format.ts';
import './strategies.css';

type Configuration = components['schemas']['Configuration'];

const PAGE_SIZE = 50;

export function ConfigurationsPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const [activeOnly, setActiveOnly] = useState(false);
  const [notice, setNotice] = useState<string | null>(
    (location.state as { notice?: string } | null)?.notice ?? null,
  );

  const fetchPage = useCallback(
    async (after?: string): Promise<PageResult<Configuration>> => {
      const { data, error: failure } = await api.GET('/v1/configurations', {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(after && { cursor: after }),
            ...(activeOnly && { activeOnly: 'true' }),
          },
        },
      });
      return data
        ? { items: data.data, nextCursor: data.nextCursor }
        : { error: errorMessage(failure, 'Could not load your configurations.') };
    },
    [activeOnly],
  );
  const {
    items: configs,
    setItems: setConfigs,
    cursor,
    error,
    setError,
    loadMore,
  } = useCursorList(fetchPage);

  useEffect(() => {
    document.title = 'Configurations · Hindsight';
  }, []);

  const clone = async (config: Configuration) => {
    setNotice(null);
    const { data, error: failure } = await api.POST('/v1/configurations/{config_id}/clone', {
      params: { path: { config_id: config.configId } },
    });
    if (!data) {
      setError(errorMessage(failure, `Could not clone “${config.name}”.`));
      return;
    }
    navigate(`/configurations/${data.data.configId}`, {
      state: { notice: `Cloned “${config.name}”: this is the copy, “${data.data.name}”.` },
    });
  };

  const remove = async (config: Configuration) => {
    setNotice(null);
    const { error: failure, response } = await api.DELETE('/v1/configurations/{config_id}', {
      params: { path: { config_id: config.configId } },
    });
    if (!response.ok) {
      setError(errorMessage(failure, `Could not delete “${config.name}”.`));
      return;
    }
    setError(null);
    setNotice(`Configuration “${config.name}” deleted.`);
    setConfigs((shown) => shown?.filter((c) => c.configId !== config.configId) ?? null);
  };

  return (
    <section>
      <h1>Configurations</h1>
      <p className="lead">
        A configuration is what a run replays: instruments and events, the window, capital and costs. Runs and
        sweeps start from them.
      </p>
      <div className="strategies-toolbar">
        <Link to="/configurations/new" className="button-link">
          New configuration
        </Link>
        <span className="config-check">
          <input
            type="checkbox"
            id="configs-active-only"
            checked={activeOnly}
            onChange={(e) => setActiveOnly(e.target.checked)}
          />
          <label htmlFor="configs-active-only">Active only</label>
        </span>
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!configs && !error && <p role="status">Loading…</p>}
      {configs && configs.length === 0 && (
        <p>
          No configurations{activeOnly ? ' are active' : ' yet'}.{' '}
          <Link to="/configurations/new">Create one</Link>.
        </p>
      )}
      {configs && configs.length > 0 && (
        <div className="table-wrap strategies-scroll">
          <table className="strategies-table table-cards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Instruments</th>
                <th scope="col">Window (UTC)</th>
                <th scope="col">Active</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {configs.map((config) => (
                <ConfigRow key={config.configId} config={config} onClone={clone} onDelete={remove} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor && (
        <button type="button" className="secondary strategies-more" onClick={loadMore}>
          Load more
        </button>
      )}
    </section>
  );
}

interface RowProps {
  config: Configuration;
  onClone: (config: Configuration) => Promise<void>;
  onDelete: (config: Configuration) => Promise<void>;
}

function ConfigRow({ config, onClone, onDelete }: RowProps) {
  const instruments = config.subscriptions.map((s) => s.instrument);
  return (
    <tr>
      <td data-label="Name">
        <Link to={`/configurations/${config.configId}`}>{config.name}</Link>
      </td>
      <td data-label="Instruments" className="strategies-wrap">
        {instruments.join(', ')}
      </td>
      <td data-label="Window (UTC)" className="strategies-nowrap">
        {formatInstant(config.startTime).replace(' UTC', '')} →
        <br />
        {formatInstant(config.endTime).replace(' UTC', '')}
      </td>
      <td data-label="Active">{config.isActive ? 'Yes' : 'No'}</td>
      <td data-label="Created" className="strategies-nowrap">
        {formatInstant(config.createdAt)}
      </td>
      <td className="actions">
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete ${config.name}`}
          question={`Delete “${config.name}”?`}
          confirmLabel="Yes, delete"
          onConfirm={() => onDelete(config)}
        >
          <Link to={`/configurations/${config.configId}`} aria-label={`Edit ${config.name}`}>
            Edit
          </Link>
          <button
            type="button"
            className="secondary"
            aria-label={`Clone ${config.name}`}
            onClick={() => onClone(config)}
          >
            Clone
          </button>
        </ConfirmButton>
      </td>
    </tr>
  );
}
