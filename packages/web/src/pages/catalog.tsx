/**
 * The catalog page (`/catalog`): the platform's instruments (`GET /v1/instruments`, markets from
 * `/v1/instruments/markets`), filtered by market and a search on symbol and name, with their status,
 * timeframes and first and last day of data; and the store's day coverage of each (the app's
 * `/app-api/catalog/coverage`) on one timeline that shows the gaps. Coverage failing to load leaves
 * the instrument table in place, with its own error.
 */
import './catalog.css';
import { useEffect, useMemo, useState } from 'react';
import { api, errorMessage } from '../api/client.ts';
import { type InstrumentCoverage, internal } from '../api/internal.ts';
import type { components } from '../api/openapi.gen.ts';
import { CatalogTimeline } from '../components/catalog-timeline.tsx';
import { timelineAxis } from '../components/catalog-timeline-model.ts';

type Instrument = components['schemas']['Instrument'];
type Market = components['schemas']['Market'];

export function CatalogPage() {
  const [instruments, setInstruments] = useState<Instrument[] | null>(null);
  const [markets, setMarkets] = useState<Market[]>([]);
  const [coverage, setCoverage] = useState<InstrumentCoverage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [coverageError, setCoverageError] = useState<string | null>(null);
  const [market, setMarket] = useState('');
  const [search, setSearch] = useState('');

  useEffect(() => {
    document.title = 'Catalog · Hindsight';
    void (async () => {
      const [list, marketList] = await Promise.all([
        api.GET('/v1/instruments'),
        api.GET('/v1/instruments/markets'),
      ]);
      if (!list.data) setError(errorMessage(list.error, 'Could not load the instruments.'));
      else setInstruments(list.data.data);
      if (marketList.data) setMarkets(marketList.data.data);
    })();
    internal
      .coverage()
      .then(setCoverage, (caught: Error) =>
        setCoverageError(caught.message || 'Could not load the data coverage.'),
      );
  }, []);

  const coverageBySymbol = useMemo(() => new Map(coverage?.map((c) => [c.symbol, c])), [coverage]);
  const marketName = (id: string) => markets.find((m) => m.id === id)?.name ?? id;
  const needle = search.trim().toLowerCase();
  // The coverage carries symbol, name and market too, so the timeline filters without the instrument list.
  const matches = (i: { symbol: string; name: string; market: string }) =>
    (!market || i.market === market) &&
    (!needle || i.symbol.toLowerCase().includes(needle) || i.name.toLowerCase().includes(needle));
  const shown = (instruments ?? []).filter(matches);
  const shownCoverage = (coverage ?? []).filter(matches);
  const axis = timelineAxis(shownCoverage);

  return (
    <section className="catalog-page">
      <h1>Catalog</h1>
      <p className="lead">
        The instruments a configuration can subscribe to, and the days of market data the store holds.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="catalog-filters">
        <div className="catalog-field">
          <label htmlFor="catalog-market">Market</label>
          <select id="catalog-market" value={market} onChange={(e) => setMarket(e.target.value)}>
            <option value="">All markets</option>
            {markets.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <div className="catalog-field catalog-search">
          <label htmlFor="catalog-search">Search</label>
          <input
            id="catalog-search"
            type="search"
            placeholder="Symbol or name"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
      </div>
      <h2>Coverage</h2>
      <p className="muted">
        Days with data are filled; gaps between an instrument's first and last day are hatched (hover one for
        its dates; all are listed below).
      </p>
      {coverageError && (
        <p className="error" role="alert">
          {coverageError}
        </p>
      )}
      {!coverage && !coverageError && <p className="muted">Loading coverage…</p>}
      {coverage && !axis && <p>No data stored for these instruments.</p>}
      {coverage && axis && <CatalogTimeline axis={axis} instruments={shownCoverage} />}

      <h2>Instruments</h2>
      {!instruments && !error && <p className="muted">Loading instruments…</p>}
      {instruments && (
        <p className="muted" aria-live="polite">
          {shown.length} of {instruments.length} instruments
        </p>
      )}
      {instruments && shown.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        <section className="table-wrap" tabIndex={0} aria-label="Instruments">
          <table className="catalog-table table-cards" data-testid="catalog-table">
            <thead>
              <tr>
                <th scope="col">Symbol</th>
                <th scope="col">Name</th>
                <th scope="col">Market</th>
                <th scope="col">Status</th>
                <th scope="col">Timeframes</th>
                <th scope="col">First day</th>
                <th scope="col">Last day</th>
                <th scope="col">Gaps</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((instrument) => {
                const days = coverageBySymbol.get(instrument.symbol);
                const timeframes = days?.timeframes ?? instrument.granularities;
                return (
                  <tr key={instrument.symbol} data-symbol={instrument.symbol}>
                    <td data-label="Symbol" className="catalog-nowrap">
                      <code>{instrument.symbol}</code>
                    </td>
                    <td data-label="Name">{instrument.name}</td>
                    <td data-label="Market">{marketName(instrument.market)}</td>
                    <td data-label="Status">
                      <span className={`catalog-status catalog-status-${instrument.status}`}>
                        {instrument.status === 'available' ? 'Available' : 'Coming soon'}
                      </span>
                    </td>
                    <td data-label="Timeframes">{timeframes.length > 0 ? timeframes.join(', ') : '—'}</td>
                    <td data-label="First day" className="catalog-nowrap">
                      {days?.firstDay ?? instrument.dataStartDate ?? '—'}
                    </td>
                    <td data-label="Last day" className="catalog-nowrap">
                      {days?.lastDay ?? instrument.dataEndDate ?? '—'}
                    </td>
                    <td data-label="Gaps">{days ? days.gaps.length : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
    </section>
  );
}
