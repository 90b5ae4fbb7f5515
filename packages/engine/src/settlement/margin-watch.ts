import { Dec, toDecimalString } from '@hindsight/core';
import type { Account } from '../account/account.ts';
import type { MarginMonitor } from '../account/margin-monitor.ts';
import { isoTime } from '../numbers/iso-time.ts';
import type { SubmitOutcome } from '../orders/commands.ts';
import type { PositionSnapshot } from '../positions/position.ts';
import type { CloseReason } from '../positions/trade-lot.ts';
import type { EngineEvents } from '../venue/engine-events.ts';

/** How a stop-out closes a position: its associated orders cancelled, then a reduce-only MARKET order. */
export interface PositionCloser {
  closeAtMarket(position: PositionSnapshot, closeReason: CloseReason): SubmitOutcome;
}

/**
 * Margin levels at the close of each minute (docs/fills.md "Margin"): a move to a worse state emits
 * MARGIN_WARNING or MARGIN_CALL (always, whatever the subscription: they are alerts); at stop-out the
 * positions are liquidated at market one at a time, largest loss first, until the level is above the
 * stop-out level again.
 */
export class MarginWatch {
  constructor(
    private readonly margin: Pick<MarginMonitor, 'check' | 'nextLiquidation' | 'recheck'>,
    private readonly account: Pick<Account, 'view'>,
    private readonly events: Pick<EngineEvents, 'push'>,
    private readonly closer: PositionCloser,
  ) {}

  check(clock: number, navApprox: number, marginApprox: number): void {
    const change = this.margin.check(navApprox, marginApprox);
    if (!change) return;
    if (change.event) {
      const account = this.account.view(change.marginUsed);
      this.events.push({ type: 'account', event: change.event, account, timestamp: isoTime(clock) });
    }
    if (change.state !== 'stop_out') return;
    for (let next = this.margin.nextLiquidation(); next; next = this.margin.nextLiquidation()) {
      this.liquidate(next.position, next.levelPct, clock);
    }
    this.margin.recheck();
  }

  /** Closes a position at market with `close_reason` Liquidation and reports it (`error` LIQUIDATION). */
  private liquidate(position: PositionSnapshot, levelPct: Dec, clock: number): void {
    const result = this.closer.closeAtMarket(position, 'Liquidation');
    const orderId = result.ok ? result.order.id : null;
    const level = toDecimalString(levelPct.toDecimalPlaces(2, Dec.ROUND_DOWN));
    this.events.push({
      type: 'error',
      code: 'LIQUIDATION',
      message: `Stop-out at margin level ${level}%: ${position.side} ${position.view.quantity} ${position.symbol} (position ${position.id}) was closed at market.`,
      details: {
        position_id: position.id,
        symbol: position.symbol,
        side: position.side,
        quantity: position.view.quantity,
        order_id: orderId,
        margin_level_pct: level,
      },
      timestamp: isoTime(clock),
    });
  }
}
