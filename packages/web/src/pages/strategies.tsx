/**
 * The strategies (/strategies): create one (name, description), and the list a page at a time (cursor),
 * archived ones only when asked for; each name links to the strategy's page with its versions.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { type PageResult, useCursorList } from '../components/cursor-list.ts';
import { StrategyStatus } from '../components/strategy-badges.tsx';
import { formatInstant } from '../format.ts';
import './strategies.css';

type Strategy = components['schemas']['Strategy'];

const PAGE_SIZE = 50;

export function StrategiesPage() {
  const location = useLocation();
  const [includeArchived, setIncludeArchived] = useState(false);
  const notice = (location.state as { notice?: string } | null)?.notice;

  const fetchPage = useCallback(
    async (after?: string): Promise<PageResult<Strategy>> => {
      const { data, error: failure } = await api.GET('/v1/strategies', {
        params: {
          query: {
            limit: PAGE_SIZE,
            ...(after && { cursor: after }),
            ...(includeArchived && { includeArchived: 'true' }),
          },
        },
      });
      return data
        ? { items: data.data, nextCursor: data.nextCursor }
        : { error: errorMessage(failure, 'Could not load your strategies.') };
    },
    [includeArchived],
  );
  const { items: strategies, cursor, error, loadMore } = useCursorList(fetchPage);

  useEffect(() => {
    document.title = 'Strategies · Hindsight';
  }, []);

  return (
    <section>
      <h1>Strategies</h1>
      <p className="lead">
        A strategy is a named line of versions; each version is a container image you push, then run against
        configurations.
      </p>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <CreateStrategyForm />
      <h2>Your strategies</h2>
      <div className="strategies-toolbar">
        <span className="config-check">
          <input
            type="checkbox"
            id="strategies-include-archived"
            checked={includeArchived}
            onChange={(e) => setIncludeArchived(e.target.checked)}
          />
          <label htmlFor="strategies-include-archived">Show archived</label>
        </span>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!strategies && !error && <p role="status">Loading…</p>}
      {strategies && strategies.length === 0 && <p>No strategies yet: create one above.</p>}
      {strategies && strategies.length > 0 && (
        <div className="table-wrap strategies-scroll">
          <table className="strategies-table table-cards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {strategies.map((strategy) => (
                <tr key={strategy.strategyId}>
                  <td data-label="Name">
                    <Link to={`/strategies/${strategy.strategyId}`}>{strategy.name}</Link>
                  </td>
                  <td data-label="Description" className="strategies-wrap">
                    {strategy.description ?? ''}
                  </td>
                  <td data-label="Status">
                    <StrategyStatus status={strategy.status} />
                  </td>
                  <td data-label="Created" className="strategies-nowrap">
                    {formatInstant(strategy.createdAt)}
                  </td>
                  <td data-label="Updated" className="strategies-nowrap">
                    {formatInstant(strategy.updatedAt)}
                  </td>
                </tr>
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

/** Creates the strategy and opens its page, where the first version is made. */
function CreateStrategyForm() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/v1/strategies', {
      body: { name, ...(description !== '' && { description }) },
    });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not create the strategy.'));
      return;
    }
    navigate(`/strategies/${data.data.strategyId}`, {
      state: { notice: `Strategy “${data.data.name}” created. Create its first version below.` },
    });
  };

  return (
    <form className="strategies-form" onSubmit={submit} noValidate>
      <h2>Create a strategy</h2>
      <label htmlFor="strategy-new-name">Name</label>
      <input id="strategy-new-name" value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="strategy-new-description">Description</label>
      <textarea
        id="strategy-new-description"
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <button type="submit" disabled={busy}>
        Create strategy
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
