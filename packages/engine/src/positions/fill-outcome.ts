import { Dec } from '@hindsight/core';
import { type Scaled, scaledText } from '../numbers/scaled-decimal.ts';
import type { Side } from '../orders/order-types.ts';
import type { PositionSnapshot } from './position.ts';
import type { ClosedTradeLot, CloseReason, OpenTradeLot } from './trade-lot.ts';

/** A fill as the position book takes it, and what it did to the positions and lots. */

export type PositionEventType = 'POSITION_OPENED' | 'POSITION_MODIFIED' | 'POSITION_CLOSED';

const SCALED_ZERO: Scaled = { value: 0n, scale: 0 };

/** Who fills what, when: the fill without its amounts. */
export interface FillOrder {
  orderId: string;
  symbol: string;
  side: Side;
  /** Epoch ms. */
  time: number;
  /** Hedging: the position this fill reduces. Ignored under netting. */
  positionId?: string;
  /** Reason written on the lots this fill closes; default `Normal`. */
  closeReason?: CloseReason;
  /**
   * `false` when nobody reads the outcome's position events: then none are made (each is a snapshot
   * of a position the fill changed, two for a reversal, and most runs subscribe to none).
   */
  events?: boolean;
}

/** One execution, already priced (slippage applied) and charged (commission in USD) by the caller. */
export interface BookFill extends FillOrder {
  /** Positive base units. */
  units: Dec;
  /** Post-slippage fill price. */
  price: Dec;
  /** Pre-slippage market price. */
  basePrice: Dec;
  slippageBps: Dec;
  /** The fill's whole commission, USD (0 for a zero-fee config). */
  commissionUsd: Dec;
}

export interface PositionEvent {
  type: PositionEventType;
  time: number;
  position: PositionSnapshot;
}

export interface FillOutcome {
  orderId: string;
  symbol: string;
  time: number;
  /** In order: a close (or modification) before an open. */
  events: PositionEvent[];
  /** Lots this fill opened (at most one). */
  openedLots: OpenTradeLot[];
  /** Lots this fill closed, FIFO order. */
  closedLots: ClosedTradeLot[];
  /** Sum of `closedLots` realized P&L, USD, before commissions. */
  readonly realizedPnlUsd: Dec;
  /** The fill's commission, USD (the account books it whole). */
  readonly commissionUsd: Dec;
  /** `realizedPnlUsd` and `commissionUsd` as scaled integers (what the account adds up). */
  readonly realizedUsd: Scaled;
  readonly commission: Scaled;
}

/** A fill's outcome; its realized P&L and commission are made decimals only when read. */
export class Outcome implements FillOutcome {
  readonly events: PositionEvent[] = [];
  readonly openedLots: OpenTradeLot[] = [];
  readonly closedLots: ClosedTradeLot[] = [];
  realizedUsd: Scaled = SCALED_ZERO;

  constructor(
    readonly orderId: string,
    readonly symbol: string,
    readonly time: number,
    readonly commission: Scaled,
  ) {}

  get realizedPnlUsd(): Dec {
    return new Dec(scaledText(this.realizedUsd));
  }

  get commissionUsd(): Dec {
    return new Dec(scaledText(this.commission));
  }
}
