/**
 * The configuration editor (/configurations/new and /configurations/:configId): a form over every field
 * of a saved configuration, instruments and events picked from the catalog. It saves with POST (new) or
 * PUT (edit) and leaves judging the values to the API: a 400's issues are shown on the fields they name
 * (config-issues.ts), focus goes to the first of them, and what names no field is shown above the form.
 * An existing configuration can also be cloned or deleted from here.
 */
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import { ConfigCosts } from '../components/config-costs.tsx';
import { ConfigEnv } from '../components/config-env.tsx';
import {
  type ConfigForm,
  emptyForm,
  emptySubscription,
  fieldSlots,
  formOf,
  ids,
  toRequestBody,
} from '../components/config-form-model.ts';
import { type PlacedIssues, placeIssues } from '../components/config-issues.ts';
import {
  ConfigSubscriptions,
  type EventChoices,
  type Instrument,
  type Market,
} from '../components/config-subscriptions.tsx';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { FieldError, fieldProps } from '../components/field-error.tsx';
import { formatInstant } from '../format.ts';
import './strategies.css';

interface Catalog {
  instruments: Instrument[];
  markets: Market[];
  events: EventChoices;
}

const noIssues: PlacedIssues = { byField: new Map(), general: [], focusId: undefined };

/** What a page shows after navigating here from a save or a clone (router state). */
interface ArrivalNotice {
  notice?: string;
}

export function ConfigurationEditorPage() {
  const { configId } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [form, setForm] = useState<ConfigForm | null>(null);
  const [meta, setMeta] = useState<{ createdAt: string; updatedAt: string } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [issues, setIssues] = useState<PlacedIssues>(noIssues);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // The page stays mounted from /new to the saved configuration and from one to its clone: each arrival
  // brings its own notice.
  const arrival = (location.state as ArrivalNotice | null)?.notice ?? null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new navigation (location.key) re-reads it.
  useEffect(() => {
    setNotice(arrival);
  }, [location.key]);

  useEffect(() => {
    document.title = `${configId ? 'Edit configuration' : 'New configuration'} · Hindsight`;
  }, [configId]);

  // The catalog and the configuration load together: the form needs the event list to tell the ticked
  // events from the patterns.
  useEffect(() => {
    let live = true;
    setForm(null);
    setIssues(noIssues);
    void (async () => {
      const [instruments, markets, events, config] = await Promise.all([
        api.GET('/v1/instruments'),
        api.GET('/v1/instruments/markets'),
        api.GET('/v1/events'),
        configId
          ? api.GET('/v1/configurations/{config_id}', { params: { path: { config_id: configId } } })
          : Promise.resolve(null),
      ]);
      if (!live) return;
      if (!instruments.data || !markets.data || !events.data) {
        setLoadError(
          errorMessage(
            instruments.error ?? markets.error ?? events.error,
            'Could not load the instrument catalog.',
          ),
        );
        return;
      }
      const candle = events.data.data.find((e) => e.kind.startsWith('candle'));
      const choices: EventChoices = {
        candles: candle?.patterns?.find((p) => p.pattern === 'candle_<tf>')?.expandsTo ?? [],
        updates: events.data.data
          .filter((e) => e !== candle)
          .map((e) => ({ kind: e.kind, description: e.description })),
      };
      const known = new Set([...choices.candles, ...choices.updates.map((u) => u.kind)]);
      setCatalog({ instruments: instruments.data.data, markets: markets.data.data, events: choices });
      if (config) {
        if (!config.data) {
          setLoadError(errorMessage(config.error, 'Could not load the configuration.'));
          return;
        }
        setMeta({ createdAt: config.data.data.createdAt, updatedAt: config.data.data.updatedAt });
        setForm(formOf(config.data.data, known));
      } else {
        setMeta(null);
        setForm(starterForm(instruments.data.data));
      }
      setLoadError(null);
    })();
    return () => {
      live = false;
    };
  }, [configId]);

  // Focus follows the API's verdict: the first invalid field, or the summary when no field was named.
  useEffect(() => {
    if (issues.focusId) document.getElementById(issues.focusId)?.focus();
    else if (issues.general.length > 0) document.getElementById('config-form-errors')?.focus();
  }, [issues]);

  const slots = useMemo(() => (form ? fieldSlots(form) : []), [form]);

  if (loadError) {
    return (
      <section>
        <h1>{configId ? 'Edit configuration' : 'New configuration'}</h1>
        <p className="error" role="alert">
          {loadError}
        </p>
        <p>
          <Link to="/configurations">Back to configurations</Link>
        </p>
      </section>
    );
  }
  if (!form || !catalog) {
    return (
      <section>
        <h1>{configId ? 'Edit configuration' : 'New configuration'}</h1>
        <p role="status">Loading…</p>
      </section>
    );
  }

  const change = (part: Partial<ConfigForm>) => setForm({ ...form, ...part });
  const errors = issues.byField;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setNotice(null);
    const body = toRequestBody(form);
    const result = configId
      ? await api.PUT('/v1/configurations/{config_id}', { params: { path: { config_id: configId } }, body })
      : await api.POST('/v1/configurations', { body });
    setBusy(false);
    if (!result.data) {
      setIssues(placeIssues(result.error, slots, 'Could not save the configuration.'));
      return;
    }
    setIssues(noIssues);
    const saved = result.data.data;
    if (configId) {
      setMeta({ createdAt: saved.createdAt, updatedAt: saved.updatedAt });
      setNotice(`Saved at ${formatInstant(saved.updatedAt)}.`);
    } else {
      navigate(`/configurations/${saved.configId}`, {
        state: { notice: `Configuration “${saved.name}” created.` },
      });
    }
  };

  const clone = async () => {
    if (!configId) return;
    setNotice(null);
    const { data, error } = await api.POST('/v1/configurations/{config_id}/clone', {
      params: { path: { config_id: configId } },
    });
    if (!data) {
      setIssues({ ...noIssues, general: [errorMessage(error, 'Could not clone the configuration.')] });
      return;
    }
    navigate(`/configurations/${data.data.configId}`, {
      state: {
        notice: `Cloned: this is the copy, “${data.data.name}”. Unsaved edits of the original were not copied.`,
      },
    });
  };

  const remove = async () => {
    if (!configId) return;
    const { error, response } = await api.DELETE('/v1/configurations/{config_id}', {
      params: { path: { config_id: configId } },
    });
    if (!response.ok) {
      setIssues({ ...noIssues, general: [errorMessage(error, 'Could not delete the configuration.')] });
      return;
    }
    navigate('/configurations', { state: { notice: `Configuration “${form.name}” deleted.` } });
  };

  const nameErrors = errors.get('name');
  const descriptionErrors = errors.get('description');
  const activeErrors = errors.get('isActive');
  const fieldCount = [...errors.values()].length;

  return (
    <section className="config-editor">
      <p className="config-back">
        <Link to="/configurations">← Configurations</Link>
      </p>
      <h1>{configId ? 'Edit configuration' : 'New configuration'}</h1>
      {meta && (
        <p className="lead">
          Created {formatInstant(meta.createdAt)} · last saved {formatInstant(meta.updatedAt)}
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {configId && (
        <div className="row config-actions">
          <button type="button" className="secondary" onClick={clone}>
            Clone
          </button>
          {/* Keyed: a question asked about one configuration must not stay open on its clone. */}
          <ConfirmButton
            key={configId}
            label="Delete"
            question="Delete this configuration for good?"
            confirmLabel="Yes, delete"
            onConfirm={remove}
          />
        </div>
      )}
      <form className="config-form" noValidate onSubmit={save}>
        <div id="config-form-errors" tabIndex={-1} role="alert" className="config-form-errors">
          {(issues.general.length > 0 || fieldCount > 0) && (
            <>
              <p className="error">
                The configuration was not saved
                {fieldCount > 0 ? ': correct the fields marked below.' : '.'}
              </p>
              {issues.general.length > 0 && (
                <ul className="error">
                  {issues.general.map((line) => (
                    <li key={line}>{line}</li>
                  ))}
                </ul>
              )}
            </>
          )}
        </div>

        <div className="config-field">
          <label htmlFor={ids.name}>Name</label>
          <input
            id={ids.name}
            value={form.name}
            onChange={(e) => change({ name: e.target.value })}
            {...fieldProps(ids.name, nameErrors)}
          />
          <FieldError fieldId={ids.name} messages={nameErrors} />
        </div>
        <div className="config-field">
          <label htmlFor={ids.description}>Description</label>
          <textarea
            id={ids.description}
            rows={2}
            value={form.description}
            onChange={(e) => change({ description: e.target.value })}
            {...fieldProps(ids.description, descriptionErrors)}
          />
          <FieldError fieldId={ids.description} messages={descriptionErrors} />
        </div>
        <div className="config-field">
          <span className="config-check">
            <input
              type="checkbox"
              id={ids.isActive}
              checked={form.isActive}
              onChange={(e) => change({ isActive: e.target.checked })}
              {...fieldProps(ids.isActive, activeErrors)}
            />
            <label htmlFor={ids.isActive}>
              Active (listed when only active configurations are asked for)
            </label>
          </span>
          <FieldError fieldId={ids.isActive} messages={activeErrors} />
        </div>

        <ConfigSubscriptions
          rows={form.subscriptions}
          onChange={(subscriptions) => change({ subscriptions })}
          instruments={catalog.instruments}
          markets={catalog.markets}
          events={catalog.events}
          errors={errors}
        />

        <fieldset className="config-section">
          <legend>Window and account</legend>
          <p className="config-hint">Times are UTC. The start is included, the end is not.</p>
          <div className="config-grid">
            <DateTimeField
              id={ids.startTime}
              label="Start (UTC)"
              value={form.startTime}
              messages={errors.get('startTime')}
              onChange={(startTime) => change({ startTime })}
            />
            <DateTimeField
              id={ids.endTime}
              label="End (UTC)"
              value={form.endTime}
              messages={errors.get('endTime')}
              onChange={(endTime) => change({ endTime })}
            />
            <div className="config-field">
              <label htmlFor={ids.initialCapital}>Initial capital (USD)</label>
              <input
                id={ids.initialCapital}
                inputMode="decimal"
                value={form.initialCapital}
                placeholder="100000"
                onChange={(e) => change({ initialCapital: e.target.value })}
                {...fieldProps(ids.initialCapital, errors.get('initialCapital'))}
              />
              <FieldError fieldId={ids.initialCapital} messages={errors.get('initialCapital')} />
            </div>
            <div className="config-field">
              <label htmlFor={ids.positionMode}>Position mode</label>
              <select
                id={ids.positionMode}
                value={form.positionMode}
                onChange={(e) => change({ positionMode: e.target.value as ConfigForm['positionMode'] })}
                {...fieldProps(ids.positionMode, errors.get('positionMode'))}
                aria-describedby={[
                  'config-position-mode-hint',
                  errors.has('positionMode') ? `${ids.positionMode}-error` : '',
                ]
                  .join(' ')
                  .trim()}
              >
                <option value="netting">Netting</option>
                <option value="hedging">Hedging</option>
              </select>
              <p className="config-hint" id="config-position-mode-hint">
                Netting: the fills on an instrument make one position. Hedging: each stays its own.
              </p>
              <FieldError fieldId={ids.positionMode} messages={errors.get('positionMode')} />
            </div>
          </div>
        </fieldset>

        <ConfigCosts form={form} onChange={change} errors={errors} />
        <ConfigEnv rows={form.env} onChange={(env) => change({ env })} errors={errors} />

        <button type="submit" disabled={busy}>
          Save configuration
        </button>
      </form>
    </section>
  );
}

interface DateTimeFieldProps {
  id: string;
  label: string;
  value: string;
  messages: string[] | undefined;
  onChange: (value: string) => void;
}

function DateTimeField({ id, label, value, messages, onChange }: DateTimeFieldProps) {
  return (
    <div className="config-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="datetime-local"
        step={1}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...fieldProps(id, messages)}
      />
      <FieldError fieldId={id} messages={messages} />
    </div>
  );
}

/** A new configuration starts on the first available instrument, one-minute candles, its first week of data. */
function starterForm(instruments: Instrument[]): ConfigForm {
  const form = emptyForm();
  const first = instruments.find((i) => i.status === 'available');
  if (!first) return form;
  form.subscriptions = [emptySubscription(first.symbol)];
  if (first.dataStartDate) {
    const start = new Date(`${first.dataStartDate}T00:00:00Z`);
    const end = new Date(start.getTime() + 7 * 86_400_000);
    form.startTime = start.toISOString().slice(0, 16);
    form.endTime = end.toISOString().slice(0, 16);
  }
  return form;
}
