import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import fc from 'fast-check';
import { Account, type BookFill, PositionBook, type PositionMode, type TradeLot } from '../src/index.ts';

/** Exact sums for the checks (independent of the engine's own helper). */
const Wide = Dec.clone({ precision: 2000 });
type Wide = InstanceType<typeof Wide>;

const SYMBOLS = ['C:BTCUSD', 'F:USDJPY'] as const;
const INSTRUMENTS = [
  { symbol: 'C:BTCUSD', underlying: 'BTC', denomination: 'USD' },
  { symbol: 'F:USDJPY', underlying: 'USD', denomination: 'JPY' },
];
const T0 = 1_704_067_200_000;

type Step =
  | { kind: 'mark'; symbol: number; bid: number; spread: number }
  | {
      kind: 'fill';
      symbol: number;
      buy: boolean;
      units: number;
      unitScale: number;
      price: number;
      /** Commission numerator over 7, so shares are long quotients. */
      commission: number;
      /** Hedging: reduce an opposite position (pick, percent of its quantity), or open a new one. */
      target: { pick: number; percent: number } | null;
    }
  | { kind: 'funding'; amount: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('mark' as const),
    symbol: fc.integer({ min: 0, max: 1 }),
    bid: fc.integer({ min: 5_000, max: 20_000 }),
    spread: fc.integer({ min: 0, max: 50 }),
  }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('fill' as const),
      symbol: fc.integer({ min: 0, max: 1 }),
      buy: fc.boolean(),
      units: fc.integer({ min: 1, max: 5_000 }),
      unitScale: fc.integer({ min: 0, max: 3 }),
      price: fc.integer({ min: 5_000, max: 20_000 }),
      commission: fc.integer({ min: 0, max: 100 }),
      target: fc.option(fc.record({ pick: fc.nat({ max: 10 }), percent: fc.integer({ min: 1, max: 100 }) }), {
        nil: null,
      }),
    }),
  },
  fc.record({ kind: fc.constant('funding' as const), amount: fc.integer({ min: -1000, max: 1000 }) }),
);

const sumWide = (values: Iterable<Dec | string>): Wide => {
  let sum = new Wide(0);
  for (const v of values) sum = sum.plus(v);
  return sum;
};

function checkInvariants(
  mode: PositionMode,
  book: PositionBook,
  account: Account,
  bought: Map<string, Wide>,
  sold: Map<string, Wide>,
): void {
  assert.ok(account.identityHolds(), 'initialCapital + realized - commissions + funding == balance');
  account.assertIdentity();

  const lots = book.lots();
  for (let i = 1; i < lots.length; i++) {
    assert.ok((lots[i - 1] as TradeLot).id < (lots[i] as TradeLot).id, 'lots strictly sorted by id');
  }
  for (const lot of lots) assert.ok(new Dec(lot.units).gt(0), `lot ${lot.id} has positive units`);

  const positions = book.positions();
  let openLotCount = 0;
  let unrealizedUsd = new Wide(0);
  for (const p of positions) {
    assert.ok(p.quantity.gt(0), 'an open position has a positive quantity');
    assert.ok(p.quantity.eq(sumWide(p.openLots.map((l) => l.units))), 'quantity == sum of open lot units');
    for (const lot of p.openLots) {
      assert.equal(lot.state, 'Open');
      assert.equal(lot.instrument_symbol, p.symbol);
      assert.equal(lot.direction, p.side === 'LONG' ? 'Long' : 'Short');
    }
    openLotCount += p.openLots.length;
    unrealizedUsd = unrealizedUsd.plus(p.unrealizedPnlUsd);
  }
  assert.equal(openLotCount, book.openLots().length, 'every open lot belongs to one open position');
  assert.ok(account.equity.eq(new Wide(account.balance).plus(unrealizedUsd)), 'nav == balance + unrealized');

  for (const symbol of SYMBOLS) {
    const of = lots.filter((l) => l.instrument_symbol === symbol);
    const units = (pred: (l: TradeLot) => boolean) => sumWide(of.filter(pred).map((l) => l.units));
    // Every bought unit either opened a Long lot or closed (part of) a Short lot, and vice versa.
    const b = units((l) => l.direction === 'Long').plus(
      units((l) => l.direction === 'Short' && l.state === 'Closed'),
    );
    const s = units((l) => l.direction === 'Short').plus(
      units((l) => l.direction === 'Long' && l.state === 'Closed'),
    );
    assert.ok(b.eq(bought.get(symbol) ?? 0), `${symbol}: bought units accounted for`);
    assert.ok(s.eq(sold.get(symbol) ?? 0), `${symbol}: sold units accounted for`);
    const mine = positions.filter((p) => p.symbol === symbol);
    const net = sumWide(mine.map((p) => (p.side === 'LONG' ? p.quantity : p.quantity.neg())));
    assert.ok(
      net.eq(new Wide(bought.get(symbol) ?? 0).minus(sold.get(symbol) ?? 0)),
      `${symbol}: net position`,
    );
    if (mode === 'netting') assert.ok(mine.length <= 1, 'netting: at most one position per symbol');
  }

  const closed = lots.filter((l) => l.state === 'Closed');
  assert.ok(
    sumWide(closed.map((l) => l.realized_pnl)).eq(account.realizedPnl),
    'realized == sum of closed lots',
  );
  const commissions = sumWide(lots.flatMap((l) => [l.entry_commission ?? '0', l.exit_commission ?? '0']));
  assert.ok(commissions.eq(account.commissions), 'commissions == sum of lot commissions');
}

function run(mode: PositionMode, steps: Step[]): { book: PositionBook; account: Account } {
  const book = new PositionBook({ mode, instruments: INSTRUMENTS });
  const account = new Account({ initialCapital: 100000, unrealized: book });
  book.mark('C:BTCUSD', new Dec('100'), new Dec('100.1'));
  book.mark('F:USDJPY', new Dec('150'), new Dec('150.02'));
  const bought = new Map<string, Wide>();
  const sold = new Map<string, Wide>();
  let time = T0;
  let order = 0;
  for (const st of steps) {
    time += 60_000;
    if (st.kind === 'mark') {
      const bid = new Dec(st.bid).div(100);
      book.mark(SYMBOLS[st.symbol] as string, bid, bid.plus(new Dec(st.spread).div(1000)));
    } else if (st.kind === 'funding') {
      account.bookFunding(new Dec(st.amount).div(365));
    } else {
      const symbol = SYMBOLS[st.symbol] as string;
      const side = st.buy ? 'BUY' : 'SELL';
      let units = new Dec(st.units).div(10 ** st.unitScale);
      let positionId: string | undefined;
      if (mode === 'hedging' && st.target) {
        const opposite = book.positions(symbol).filter((p) => p.side === (st.buy ? 'SHORT' : 'LONG'));
        const p = opposite[st.target.pick % Math.max(opposite.length, 1)];
        if (p) {
          positionId = p.id;
          units = st.target.percent === 100 ? p.quantity : p.quantity.times(st.target.percent).div(100);
        }
      }
      order += 1;
      const price = new Dec(st.price).div(100);
      const f: BookFill = {
        orderId: `o${order}`,
        symbol,
        side,
        units,
        price,
        basePrice: price,
        slippageBps: new Dec(0),
        commissionUsd: new Dec(st.commission).div(7),
        time,
        ...(positionId ? { positionId } : {}),
      };
      account.bookFill(book.applyFill(f));
      const totals = st.buy ? bought : sold;
      totals.set(symbol, new Wide(totals.get(symbol) ?? 0).plus(units));
    }
    checkInvariants(mode, book, account, bought, sold);
  }
  return { book, account };
}

describe('position book and account: properties over random fill sequences', () => {
  for (const mode of ['netting', 'hedging'] as const) {
    it(`${mode}: identity exact, lots consistent after every step`, () => {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
          run(mode, steps);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('a hand-made sequence: a netting reversal, the same fills side by side under hedging', () => {
    const steps: Step[] = [
      {
        kind: 'fill',
        symbol: 1,
        buy: true,
        units: 3,
        unitScale: 0,
        price: 15000,
        commission: 1,
        target: null,
      },
      {
        kind: 'fill',
        symbol: 1,
        buy: false,
        units: 5,
        unitScale: 0,
        price: 15100,
        commission: 1,
        target: null,
      },
      { kind: 'funding', amount: -7 },
      { kind: 'mark', symbol: 1, bid: 14900, spread: 3 },
    ];
    const netting = run('netting', steps);
    assert.deepEqual(
      netting.book.lots().map((l) => [l.state, l.direction, l.units]),
      [
        ['Closed', 'Long', '3'],
        ['Open', 'Short', '2'],
      ],
    );
    // 3 x (151 - 150) JPY at the USDJPY mid 150.01.
    assert.equal(toDecimalString(netting.account.realizedPnl), toDecimalString(new Dec(3).div('150.01')));
    const hedging = run('hedging', steps);
    assert.deepEqual(
      hedging.book.positions().map((p) => [p.side, p.view.quantity]),
      [
        ['LONG', '3'],
        ['SHORT', '5'],
      ],
    );
    assert.equal(toDecimalString(hedging.account.realizedPnl), '0');
  });
});
