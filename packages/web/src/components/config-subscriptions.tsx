/**
 * The subscriptions part of the configuration editor: one group per subscription, with the instrument
 * chosen from the catalog (grouped by market, coming-soon ones marked) and its events as checkboxes
 * (the candle timeframes and the update events of GET /v1/events), plus a text field for the other
 * patterns the API accepts (`candle_*`, `candle_{1,5}m`) so that a configuration made over the API
 * round-trips unchanged.
 */
import type { components } from '../api/openapi.gen.ts';
import { emptySubscription, ids, type SubscriptionRow } from './config-form-model.ts';
import { formatPath } from './config-issues.ts';
import { FieldError, fieldProps } from './field-error.tsx';

export type Instrument = components['schemas']['Instrument'];
export type Market = components['schemas']['Market'];

export interface EventChoices {
  candles: string[];
  updates: { kind: string; description: string }[];
}

interface Props {
  rows: SubscriptionRow[];
  onChange: (rows: SubscriptionRow[]) => void;
  instruments: Instrument[];
  markets: Market[];
  events: EventChoices;
  errors: Map<string, string[]>;
}

export function ConfigSubscriptions({ rows, onChange, instruments, markets, events, errors }: Props) {
  const update = (index: number, change: Partial<SubscriptionRow>) =>
    onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const listErrors = errors.get('subscriptions');
  const firstFree = instruments.find(
    (i) => i.status === 'available' && !rows.some((row) => row.instrument === i.symbol),
  );

  return (
    <fieldset className="config-section">
      <legend>Subscriptions</legend>
      <p className="config-hint">
        Each instrument once, with at least one candle timeframe; update events are sent as they happen.
      </p>
      {rows.map((row, index) => (
        <SubscriptionGroup
          key={row.key}
          row={row}
          index={index}
          instruments={instruments}
          markets={markets}
          events={events}
          errors={errors}
          onChange={(change) => update(index, change)}
          onRemove={rows.length > 1 ? () => onChange(rows.filter((_, i) => i !== index)) : undefined}
        />
      ))}
      <div className="row">
        <button
          type="button"
          className="secondary"
          id={ids.addSubscription}
          {...fieldProps(ids.addSubscription, listErrors)}
          onClick={() => onChange([...rows, emptySubscription(firstFree?.symbol ?? '')])}
        >
          Add subscription
        </button>
      </div>
      <FieldError fieldId={ids.addSubscription} messages={listErrors} />
    </fieldset>
  );
}

interface GroupProps {
  row: SubscriptionRow;
  index: number;
  instruments: Instrument[];
  markets: Market[];
  events: EventChoices;
  errors: Map<string, string[]>;
  onChange: (change: Partial<SubscriptionRow>) => void;
  onRemove: (() => void) | undefined;
}

function SubscriptionGroup({
  row,
  index,
  instruments,
  markets,
  events,
  errors,
  onChange,
  onRemove,
}: GroupProps) {
  const instrumentId = ids.instrument(row.key);
  const eventsId = ids.events(row.key);
  const patternsId = ids.otherPatterns(row.key);
  const instrumentErrors = [
    ...(errors.get(formatPath(['subscriptions', index])) ?? []),
    ...(errors.get(formatPath(['subscriptions', index, 'instrument'])) ?? []),
  ];
  const eventErrors = errors.get(formatPath(['subscriptions', index, 'events']));
  const selected = instruments.find((i) => i.symbol === row.instrument);
  const known = row.instrument === '' || selected !== undefined;
  const toggle = (event: string, on: boolean) =>
    onChange({ events: on ? [...row.events, event] : row.events.filter((e) => e !== event) });
  let checkbox = 0;
  const box = (event: string, text: string, title?: string) => {
    const id = checkbox === 0 ? ids.firstEvent(row.key) : `${eventsId}-${event}`;
    checkbox += 1;
    return (
      <span className="config-check" key={event} title={title}>
        <input
          type="checkbox"
          id={id}
          checked={row.events.includes(event)}
          onChange={(e) => toggle(event, e.target.checked)}
          {...fieldProps(eventsId, eventErrors)}
        />
        <label htmlFor={id}>{text}</label>
      </span>
    );
  };

  return (
    <fieldset className="config-subscription">
      <legend>Subscription {index + 1}</legend>
      <div className="config-field">
        <label htmlFor={instrumentId}>Instrument</label>
        <select
          id={instrumentId}
          value={row.instrument}
          onChange={(e) => onChange({ instrument: e.target.value })}
          {...fieldProps(instrumentId, instrumentErrors)}
        >
          {row.instrument === '' && <option value="">Choose an instrument</option>}
          {!known && <option value={row.instrument}>{row.instrument} (not in the catalog)</option>}
          {markets.map((market) => {
            const inMarket = instruments.filter((i) => i.market === market.id);
            if (inMarket.length === 0) return null;
            return (
              <optgroup key={market.id} label={market.name}>
                {inMarket.map((i) => (
                  <option key={i.symbol} value={i.symbol}>
                    {i.symbol} · {i.name}
                    {i.status === 'coming_soon' ? ' (coming soon, no data yet)' : ''}
                  </option>
                ))}
              </optgroup>
            );
          })}
        </select>
        {selected?.dataStartDate && (
          <p className="config-hint">
            Data from {selected.dataStartDate} to {selected.dataEndDate ?? 'today'} (UTC days).
          </p>
        )}
        <FieldError fieldId={instrumentId} messages={instrumentErrors} />
      </div>
      <fieldset
        className="config-events"
        id={eventsId}
        {...(eventErrors && { 'aria-describedby': `${eventsId}-error` })}
      >
        <legend>Events</legend>
        <div className="config-event-group">
          <span className="config-event-group-name" aria-hidden="true">
            Candles
          </span>
          <div className="config-event-list">{events.candles.map((event) => box(event, event))}</div>
        </div>
        <div className="config-event-group">
          <span className="config-event-group-name" aria-hidden="true">
            Updates
          </span>
          <div className="config-event-list">
            {events.updates.map((event) => box(event.kind, event.kind, event.description))}
          </div>
        </div>
        <FieldError fieldId={eventsId} messages={eventErrors} />
      </fieldset>
      <div className="config-field">
        <label htmlFor={patternsId}>Other event patterns</label>
        <input
          id={patternsId}
          value={row.otherPatterns}
          placeholder="e.g. candle_{1,5}m candle_*h"
          aria-describedby={`${patternsId}-hint`}
          onChange={(e) => onChange({ otherPatterns: e.target.value })}
        />
        <p className="config-hint" id={`${patternsId}-hint`}>
          Optional, space-separated: wildcard and list patterns of GET /v1/events.
        </p>
      </div>
      {onRemove && (
        <button type="button" className="secondary" onClick={onRemove}>
          Remove subscription {index + 1}
        </button>
      )}
    </fieldset>
  );
}
