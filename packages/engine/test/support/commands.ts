import { Dec } from '@hindsight/core';
import type { ClosePosition, ModifyOrder, SetExitLegs, SubmitOrder } from '../../src/index.ts';

/**
 * Typed commands for tests, written short: decimals may be given as text (made into `Dec` here, as a
 * strategy holding its numbers would make them), `time_in_force` defaults to GTC and a trailing
 * stop's `trailing_type` to ABSOLUTE, as the gateway's parser applies them. Nothing is validated
 * here: the engine gets exactly the command written.
 */
type Texts<T> = { [K in keyof T]: NonNullable<T[K]> extends Dec ? Dec | string : T[K] };

export type OrderFields = Omit<Texts<SubmitOrder>, 'time_in_force'> & {
  time_in_force?: SubmitOrder['time_in_force'];
};

const DECIMALS = new Set([
  'quantity',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'display_quantity',
  'leverage',
  'trailing_distance',
]);

function decimals<T>(fields: object): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[key] = DECIMALS.has(key) && typeof value === 'string' ? new Dec(value) : value;
  }
  return out as T;
}

/** A submission. */
export function order(fields: OrderFields): SubmitOrder {
  const command = decimals<SubmitOrder>({ time_in_force: 'GTC', ...fields });
  if (command.order_type === 'TRAILING_STOP') command.trailing_type ??= 'ABSOLUTE';
  return command;
}

/** A modification. */
export const changes = (fields: Texts<ModifyOrder>): ModifyOrder => decimals<ModifyOrder>(fields);

/** A position close: by default the whole position at market, associated orders cancelled. */
export function close(
  fields: {
    quantity?: Dec | string;
    order_type?: 'MARKET' | 'LIMIT';
    limit_price?: Dec | string;
    cancel_associated_orders?: boolean;
  } = {},
): ClosePosition {
  return decimals<ClosePosition>({ order_type: 'MARKET', cancel_associated_orders: true, ...fields });
}

/** New exit-leg triggers. */
export const legs = (fields: Texts<SetExitLegs>): SetExitLegs => decimals<SetExitLegs>(fields);
