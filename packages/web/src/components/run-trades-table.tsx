/**
 * The run's trades: every field of the trades file as a column, sortable by any column (decimals
 * sort as numbers), filtered by instrument, direction, state, close reason and free text, shown a
 * page at a time so 5,000+ lots stay quick. The CSV buttons export the file's exact values
 * (trades-csv.ts): all trades, or the filtered ones.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TradeLot } from '../api/internal.ts';
import { formatInstant, formatMoney } from '../format.ts';
import { compareMetricValues } from './metrics.ts';
import { saveBlob } from './run-api.ts';
import { TRADE_FIELDS, type TradeField, tradesCsv } from './trades-csv.ts';

type Field = TradeField;

const NUMERIC: ReadonlySet<Field> = new Set([
  'open_price',
  'base_open_price',
  'open_slippage_bps',
  'close_price',
  'base_close_price',
  'close_slippage_bps',
  'entry_commission',
  'exit_commission',
  'units',
  'opened_at',
  'closed_at',
  'realized_pnl',
]);
const MONEY: ReadonlySet<Field> = new Set(['entry_commission', 'exit_commission', 'realized_pnl']);
const TIMES: ReadonlySet<Field> = new Set(['opened_at', 'closed_at']);

const HEADINGS: Record<Field, string> = {
  id: 'ID',
  state: 'State',
  instrument_symbol: 'Instrument',
  open_price: 'Open price',
  base_open_price: 'Base open price',
  open_slippage_bps: 'Open slippage (bps)',
  close_price: 'Close price',
  base_close_price: 'Base close price',
  close_slippage_bps: 'Close slippage (bps)',
  entry_commission: 'Entry commission',
  exit_commission: 'Exit commission',
  units: 'Units',
  direction: 'Direction',
  opened_at: 'Opened (UTC)',
  opened_by_order_id: 'Opened by order',
  closed_at: 'Closed (UTC)',
  closed_by_order_id: 'Closed by order',
  realized_pnl: 'Realized P&L',
  close_reason: 'Close reason',
};

const PAGE_SIZES = [50, 100, 500];

interface Filters {
  instrument: string;
  direction: string;
  state: string;
  closeReason: string;
  text: string;
}

const NO_FILTERS: Filters = { instrument: '', direction: '', state: '', closeReason: '', text: '' };

function compare(field: Field): (a: TradeLot, b: TradeLot) => number {
  if (NUMERIC.has(field)) {
    // Omitted values (open lots' close side) sort after every number, in either direction's base order.
    return (a, b) => {
      const x = a[field];
      const y = b[field];
      if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
      // Decimal strings compared exactly: two prices a float cannot tell apart still sort in order.
      return compareMetricValues(x, y);
    };
  }
  return (a, b) => {
    const x = String(a[field] ?? '');
    const y = String(b[field] ?? '');
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

export function RunTradesTable({
  trades,
  scenarioId,
  currency,
  onDrawn,
}: {
  trades: readonly TradeLot[];
  scenarioId: string;
  currency: string;
  onDrawn: () => void;
}) {
  const [sort, setSort] = useState<{ field: Field; descending: boolean }>({ field: 'id', descending: false });
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [pageSize, setPageSize] = useState(50);
  const [page, setPage] = useState(0);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;

  const instruments = useMemo(() => [...new Set(trades.map((t) => t.instrument_symbol))].sort(), [trades]);

  const filtered = useMemo(() => {
    const text = filters.text.trim().toLowerCase();
    return trades.filter(
      (t) =>
        (!filters.instrument || t.instrument_symbol === filters.instrument) &&
        (!filters.direction || t.direction === filters.direction) &&
        (!filters.state || t.state === filters.state) &&
        (!filters.closeReason || (t.close_reason ?? 'none') === filters.closeReason) &&
        (!text ||
          TRADE_FIELDS.some((field) =>
            String(t[field] ?? '')
              .toLowerCase()
              .includes(text),
          )),
    );
  }, [trades, filters]);

  const sorted = useMemo(() => {
    const order = compare(sort.field);
    const result = [...filtered].sort(order);
    if (sort.descending) {
      // Reverse the present values only: omitted ones stay at the end.
      const present = result.filter((t) => t[sort.field] !== undefined).reverse();
      return [...present, ...result.filter((t) => t[sort.field] === undefined)];
    }
    return result;
  }, [filtered, sort]);

  const pages = Math.max(1, Math.ceil(sorted.length / pageSize));
  const current = Math.min(page, pages - 1);
  const shown = sorted.slice(current * pageSize, (current + 1) * pageSize);

  useEffect(() => {
    // The table is in the DOM once React commits; tell the page after the browser painted it.
    const frame = requestAnimationFrame(() => drawn.current());
    return () => cancelAnimationFrame(frame);
  }, []);

  const setFilter = (key: keyof Filters, value: string) => {
    setFilters({ ...filters, [key]: value });
    setPage(0);
  };

  const filtering = filtered.length !== trades.length;

  const download = (lots: readonly TradeLot[], suffix: string) =>
    saveBlob(
      new Blob([tradesCsv(lots)], { type: 'text/csv;charset=utf-8' }),
      `${scenarioId}-trades${suffix}.csv`,
    );

  const cell = (trade: TradeLot, field: Field) => {
    const value = trade[field];
    if (value === undefined) return '';
    if (TIMES.has(field)) return formatInstant(value as number);
    if (MONEY.has(field)) return formatMoney(value as string, currency);
    return String(value);
  };

  return (
    <div>
      <div className="runs-trade-filters">
        <div className="runs-field">
          <label htmlFor="trades-instrument">Instrument</label>
          <select
            id="trades-instrument"
            value={filters.instrument}
            onChange={(e) => setFilter('instrument', e.target.value)}
          >
            <option value="">All</option>
            {instruments.map((symbol) => (
              <option key={symbol} value={symbol}>
                {symbol}
              </option>
            ))}
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="trades-direction">Direction</label>
          <select
            id="trades-direction"
            value={filters.direction}
            onChange={(e) => setFilter('direction', e.target.value)}
          >
            <option value="">All</option>
            <option value="Long">Long</option>
            <option value="Short">Short</option>
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="trades-state">State</label>
          <select
            id="trades-state"
            value={filters.state}
            onChange={(e) => setFilter('state', e.target.value)}
          >
            <option value="">All</option>
            <option value="Open">Open</option>
            <option value="Closed">Closed</option>
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="trades-reason">Close reason</label>
          <select
            id="trades-reason"
            value={filters.closeReason}
            onChange={(e) => setFilter('closeReason', e.target.value)}
          >
            <option value="">All</option>
            <option value="Normal">Normal</option>
            <option value="Liquidation">Liquidation</option>
            <option value="EndOfBacktest">End of backtest</option>
            <option value="none">Still open</option>
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="trades-text">Search</label>
          <input
            id="trades-text"
            type="search"
            value={filters.text}
            placeholder="id, order, price…"
            onChange={(e) => setFilter('text', e.target.value)}
          />
        </div>
      </div>
      <div className="row runs-trades-toolbar">
        <span aria-live="polite">
          {filtering ? `${filtered.length} of ${trades.length} trades` : `${trades.length} trades`}
        </span>
        <button type="button" className="secondary" onClick={() => download(trades, '')}>
          Download trades CSV
        </button>
        {filtering && (
          <button type="button" className="secondary" onClick={() => download(sorted, '-filtered')}>
            Download filtered trades CSV
          </button>
        )}
      </div>
      <div className="table-wrap">
        <table
          className="runs-trades-table"
          data-testid="trades-table"
          data-rows={shown.length}
          data-total={sorted.length}
        >
          <thead>
            <tr>
              {TRADE_FIELDS.map((field) => {
                const active = sort.field === field;
                return (
                  <th
                    key={field}
                    scope="col"
                    aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}
                  >
                    <button
                      type="button"
                      onClick={() => {
                        setSort({ field, descending: active ? !sort.descending : false });
                        setPage(0);
                      }}
                    >
                      {HEADINGS[field]}
                      {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.map((trade) => (
              <tr key={trade.id}>
                {TRADE_FIELDS.map((field) => (
                  <td
                    key={field}
                    className={
                      field === 'direction'
                        ? trade.direction === 'Long'
                          ? 'runs-long'
                          : 'runs-short'
                        : NUMERIC.has(field)
                          ? 'runs-num'
                          : undefined
                    }
                    title={MONEY.has(field) || TIMES.has(field) ? String(trade[field] ?? '') : undefined}
                  >
                    {cell(trade, field)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="row runs-paging">
        <button
          type="button"
          className="secondary"
          disabled={current === 0}
          onClick={() => setPage(current - 1)}
        >
          Previous page
        </button>
        <span>
          Page {current + 1} of {pages}
        </span>
        <button
          type="button"
          className="secondary"
          disabled={current >= pages - 1}
          onClick={() => setPage(current + 1)}
        >
          Next page
        </button>
        <label htmlFor="trades-page-size">Rows per page</label>
        <select
          id="trades-page-size"
          value={pageSize}
          onChange={(e) => {
            setPageSize(Number(e.target.value));
            setPage(0);
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
