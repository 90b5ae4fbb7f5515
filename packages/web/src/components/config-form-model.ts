/**
 * The configuration editor's form state and its translation to and from the API's saved-configuration
 * body. Inputs hold text as typed; `toRequestBody` sends it as the API expects when it reads as such and
 * as typed otherwise, so that the API, not the browser, judges it and names the field (a capital of
 * "abc" reaches the API as "abc" and comes back as an error on initialCapital). Costs and env that are
 * left empty are omitted: the API's defaults are zero costs and no variables.
 */
import type { components } from '../api/openapi.gen.ts';
import { type FieldSlot, formatPath } from './config-issues.ts';

export type Configuration = components['schemas']['Configuration'];
export type SavedConfiguration = components['schemas']['SavedConfiguration'];

export const WEEKDAYS = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;
const DEFAULT_DAY_MULTIPLIERS = ['1', '1', '3', '1', '1', '0', '0'];

export interface SubscriptionRow {
  /** Stable React key and element-id part; never sent. */
  key: number;
  instrument: string;
  /** The events ticked in the checkboxes, exact event names (`candle_1m`, `order_update`). */
  events: string[];
  /** Other patterns (`candle_*`, `candle_{1,5}m`), space-separated, kept as written. */
  otherPatterns: string;
}

export interface EnvRow {
  key: number;
  name: string;
  value: string;
}

export interface ConfigForm {
  name: string;
  description: string;
  isActive: boolean;
  subscriptions: SubscriptionRow[];
  /** `datetime-local` values, read as UTC. */
  startTime: string;
  endTime: string;
  positionMode: 'netting' | 'hedging';
  initialCapital: string;
  commissionModel: 'zero' | 'bps_of_notional';
  feeRateBps: string;
  baseSlippageBps: string;
  sizeImpactBpsPer100k: string;
  maxSlippageBps: string;
  fundingModel: 'disabled' | 'daily';
  longRate: string;
  shortRate: string;
  dayMultipliers: string[];
  dayCountBasis: '365' | '360';
  env: EnvRow[];
}

let nextKey = 1;
export const newKey = (): number => nextKey++;

export function emptySubscription(instrument = ''): SubscriptionRow {
  return { key: newKey(), instrument, events: ['candle_1m'], otherPatterns: '' };
}

export function emptyForm(): ConfigForm {
  return {
    name: '',
    description: '',
    isActive: true,
    subscriptions: [emptySubscription()],
    startTime: '',
    endTime: '',
    positionMode: 'netting',
    initialCapital: '100000',
    commissionModel: 'zero',
    feeRateBps: '',
    baseSlippageBps: '',
    sizeImpactBpsPer100k: '',
    maxSlippageBps: '',
    fundingModel: 'disabled',
    longRate: '',
    shortRate: '',
    dayMultipliers: [...DEFAULT_DAY_MULTIPLIERS],
    dayCountBasis: '365',
    env: [],
  };
}

/** An API timestamp as a `datetime-local` value in UTC; seconds only when there are some. */
export function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const text = date.toISOString().slice(0, 19);
  return text.endsWith(':00') ? text.slice(0, 16) : text;
}

/** A `datetime-local` value (UTC) as the API's timestamp; anything else goes as typed, for the API to judge. */
export function fromLocalInput(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value)) return `${value}Z`;
  return value;
}

/** The form of a saved configuration; `knownEvents` are the ones with a checkbox, the rest are patterns. */
export function formOf(config: Configuration, knownEvents: ReadonlySet<string>): ConfigForm {
  const form = emptyForm();
  const { commission, slippage, funding } = config.costs ?? {};
  return {
    ...form,
    name: config.name,
    description: config.description ?? '',
    isActive: config.isActive,
    subscriptions: config.subscriptions.map((s) => ({
      key: newKey(),
      instrument: s.instrument,
      events: s.events.filter((e) => knownEvents.has(e)),
      otherPatterns: s.events.filter((e) => !knownEvents.has(e)).join(' '),
    })),
    startTime: toLocalInput(config.startTime),
    endTime: toLocalInput(config.endTime),
    positionMode: config.positionMode,
    initialCapital: String(config.initialCapital),
    ...(commission?.model === 'bps_of_notional' && {
      commissionModel: 'bps_of_notional',
      feeRateBps: commission.fee_rate_bps,
    }),
    ...(slippage && {
      baseSlippageBps: slippage.base_slippage_bps,
      sizeImpactBpsPer100k: slippage.size_impact_bps_per_100k,
      maxSlippageBps: slippage.max_slippage_bps,
    }),
    ...(funding?.model === 'daily' && {
      fundingModel: 'daily',
      longRate: funding.long_rate,
      shortRate: funding.short_rate,
      dayMultipliers:
        funding.day_multipliers?.length === 7 ? funding.day_multipliers.map(String) : form.dayMultipliers,
      dayCountBasis: funding.day_count_basis === 360 ? '360' : '365',
    }),
    env: Object.entries(config.env ?? {}).map(([name, value]) => ({ key: newKey(), name, value })),
  };
}

/** A number when the text reads as one, else the text itself (the API then says what it expects). */
const numberOrText = (text: string): number | string => {
  const trimmed = text.trim();
  const number = Number(trimmed);
  return trimmed !== '' && Number.isFinite(number) ? number : text;
};

/**
 * The request body. Typed as the API's body for the client, but deliberately not checked: values the
 * API refuses are sent as typed so that its error names the field.
 */
export function toRequestBody(form: ConfigForm): SavedConfiguration {
  const costs: Record<string, unknown> = {};
  if (form.commissionModel === 'bps_of_notional') {
    costs.commission = { model: 'bps_of_notional', fee_rate_bps: form.feeRateBps.trim() };
  }
  const slippage = [form.baseSlippageBps, form.sizeImpactBpsPer100k, form.maxSlippageBps].map((v) =>
    v.trim(),
  );
  if (slippage.some((v) => v !== '')) {
    costs.slippage = {
      base_slippage_bps: slippage[0],
      size_impact_bps_per_100k: slippage[1],
      max_slippage_bps: slippage[2],
    };
  }
  if (form.fundingModel === 'daily') {
    costs.funding = {
      model: 'daily',
      long_rate: form.longRate.trim(),
      short_rate: form.shortRate.trim(),
      day_multipliers: form.dayMultipliers.map(numberOrText),
      day_count_basis: Number(form.dayCountBasis),
    };
  }
  const env = form.env.filter((row) => row.name !== '' || row.value !== '');
  const capital = form.initialCapital.trim();
  const body = {
    name: form.name,
    ...(form.description !== '' && { description: form.description }),
    isActive: form.isActive,
    subscriptions: form.subscriptions.map((s) => ({
      instrument: s.instrument,
      events: [...s.events, ...s.otherPatterns.split(/\s+/).filter((p) => p !== '')],
    })),
    startTime: fromLocalInput(form.startTime),
    endTime: fromLocalInput(form.endTime),
    positionMode: form.positionMode,
    ...(capital !== '' && { initialCapital: numberOrText(capital) }),
    ...(Object.keys(costs).length > 0 && { costs }),
    ...(env.length > 0 && { env: Object.fromEntries(env.map((row) => [row.name, row.value])) }),
  };
  return body as unknown as SavedConfiguration;
}

/** Element ids of the editor's fields; the components and `fieldSlots` share them. */
export const ids = {
  name: 'config-name',
  description: 'config-description',
  isActive: 'config-active',
  addSubscription: 'config-add-subscription',
  instrument: (key: number) => `config-sub-${key}-instrument`,
  events: (key: number) => `config-sub-${key}-events`,
  firstEvent: (key: number) => `config-sub-${key}-event-0`,
  otherPatterns: (key: number) => `config-sub-${key}-patterns`,
  startTime: 'config-start',
  endTime: 'config-end',
  positionMode: 'config-position-mode',
  initialCapital: 'config-capital',
  commissionModel: 'config-commission-model',
  feeRateBps: 'config-fee',
  baseSlippageBps: 'config-slippage-base',
  sizeImpactBpsPer100k: 'config-slippage-impact',
  maxSlippageBps: 'config-slippage-max',
  fundingModel: 'config-funding-model',
  longRate: 'config-funding-long',
  shortRate: 'config-funding-short',
  dayMultiplier: (day: number) => `config-funding-day-${day}`,
  dayCountBasis: 'config-funding-basis',
  addEnv: 'config-add-env',
  envName: (key: number) => `config-env-${key}-name`,
  envValue: (key: number) => `config-env-${key}-value`,
};

/** Every field the API can name, in form order, with the element that takes focus for it. */
export function fieldSlots(form: ConfigForm): FieldSlot[] {
  const slots: FieldSlot[] = [
    { path: 'name', focusId: ids.name },
    { path: 'description', focusId: ids.description },
    { path: 'isActive', focusId: ids.isActive },
    { path: 'subscriptions', focusId: ids.addSubscription },
  ];
  form.subscriptions.forEach((s, index) => {
    slots.push(
      { path: formatPath(['subscriptions', index]), focusId: ids.instrument(s.key) },
      { path: formatPath(['subscriptions', index, 'instrument']), focusId: ids.instrument(s.key) },
      { path: formatPath(['subscriptions', index, 'events']), focusId: ids.firstEvent(s.key) },
    );
  });
  slots.push(
    { path: 'startTime', focusId: ids.startTime },
    { path: 'endTime', focusId: ids.endTime },
    { path: 'positionMode', focusId: ids.positionMode },
    { path: 'initialCapital', focusId: ids.initialCapital },
    { path: 'costs', focusId: ids.commissionModel },
    { path: 'costs.commission', focusId: ids.commissionModel },
  );
  if (form.commissionModel === 'bps_of_notional') {
    slots.push({ path: 'costs.commission.fee_rate_bps', focusId: ids.feeRateBps });
  }
  slots.push(
    { path: 'costs.slippage', focusId: ids.baseSlippageBps },
    { path: 'costs.slippage.base_slippage_bps', focusId: ids.baseSlippageBps },
    { path: 'costs.slippage.size_impact_bps_per_100k', focusId: ids.sizeImpactBpsPer100k },
    { path: 'costs.slippage.max_slippage_bps', focusId: ids.maxSlippageBps },
    { path: 'costs.funding', focusId: ids.fundingModel },
  );
  if (form.fundingModel === 'daily') {
    slots.push(
      { path: 'costs.funding.long_rate', focusId: ids.longRate },
      { path: 'costs.funding.short_rate', focusId: ids.shortRate },
      { path: 'costs.funding.day_multipliers', focusId: ids.dayMultiplier(0) },
      ...WEEKDAYS.map((_, day) => ({
        path: formatPath(['costs', 'funding', 'day_multipliers', day]),
        focusId: ids.dayMultiplier(day),
      })),
      { path: 'costs.funding.day_count_basis', focusId: ids.dayCountBasis },
    );
  }
  slots.push({ path: 'env', focusId: ids.addEnv });
  for (const row of form.env)
    slots.push({ path: formatPath(['env', row.name]), focusId: ids.envName(row.key) });
  return slots;
}
