import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import fc from 'fast-check';
import {
  canonicalOrderRequest,
  type ModifyOrderValidation,
  type OrderRequestError,
  type OrderRequestRules,
  type OrderRequestValidation,
  type ParsedOrderRequest,
  REJECT_CODES,
  rejectCodeFor,
  sameOrderRequest,
  validateModifyOrderRequest,
  validateOrderRequest,
} from '../src/orders/order-request.ts';
import { REJECT_REASONS } from '../src/orders/order-types.ts';

const rules: OrderRequestRules = {
  tickSize: '0.0001',
  knownSymbol: (s) => s === 'F:EURUSD',
  maxLeverage: '50',
};
const market = { symbol: 'F:EURUSD', side: 'BUY', quantity: '1000', order_type: 'MARKET' };
const limit = { ...market, order_type: 'LIMIT', limit_price: '1.1' };

function error(result: OrderRequestValidation | ModifyOrderValidation): OrderRequestError {
  assert.equal(result.ok, false, 'expected a rejection of the request');
  if (result.ok) throw new Error('unreachable');
  return result;
}
function parsed(result: OrderRequestValidation): ParsedOrderRequest {
  if (!result.ok) assert.fail(`expected a valid request, got ${result.code}: ${result.message}`);
  return result.order;
}
const expectInvalidValue = (
  body: unknown,
  field: string,
  provided: unknown,
  r: OrderRequestRules = rules,
) => {
  const e = error(validateOrderRequest(body, r));
  assert.equal(e.code, 'INVALID_VALUE', `${field}: ${e.message}`);
  assert.equal(e.details.field, field);
  assert.deepEqual(e.details.provided, provided);
  return e;
};
const expectIssues = (body: unknown, issues: { field: string; message: string }[]) => {
  const e = error(validateOrderRequest(body, rules));
  assert.equal(e.code, 'VALIDATION_ERROR', e.message);
  assert.deepEqual(e.details, { errors: issues });
  assert.equal(e.message, issues.map((i) => i.message).join('; '));
};

describe('validateOrderRequest: INVALID_REQUEST', () => {
  it('refuses a body that is not a JSON object', () => {
    for (const [body, type] of [
      [null, 'null'],
      [[market], 'array'],
      ['{"symbol":"F:EURUSD"}', 'string'],
      [42, 'number'],
      [undefined, 'undefined'],
    ] as const) {
      const e = error(validateOrderRequest(body, rules));
      assert.equal(e.code, 'INVALID_REQUEST');
      assert.deepEqual(e.details, { provided: type });
    }
  });

  it('names the first missing required field, a null counting as missing', () => {
    for (const field of ['symbol', 'side', 'quantity', 'order_type']) {
      const { [field as keyof typeof market]: _dropped, ...rest } = market;
      const e = error(validateOrderRequest(rest, rules));
      assert.equal(e.code, 'INVALID_REQUEST');
      assert.deepEqual(e.details, { field });
      assert.equal(e.message, `${field} is required.`);
      const withNull = error(validateOrderRequest({ ...market, [field]: null }, rules));
      assert.deepEqual([withNull.code, withNull.details], ['INVALID_REQUEST', { field }]);
    }
    const e = error(validateOrderRequest({}, rules));
    assert.deepEqual(e.details, { field: 'symbol' });
  });
});

describe('validateOrderRequest: INVALID_VALUE with details.field and details.provided', () => {
  it('checks symbol, side and order_type', () => {
    expectInvalidValue({ ...market, symbol: 42 }, 'symbol', 42);
    expectInvalidValue({ ...market, symbol: '  ' }, 'symbol', '  ');
    const side = expectInvalidValue({ ...market, side: 'buy' }, 'side', 'buy');
    assert.deepEqual(side.details.allowed, ['BUY', 'SELL']);
    assert.equal(side.message, 'side must be one of BUY, SELL.');
    expectInvalidValue({ ...market, order_type: 'MKT' }, 'order_type', 'MKT');
  });

  it('takes decimals only as strings of the decision 23 grammar', () => {
    const e = expectInvalidValue({ ...market, quantity: 1.5 }, 'quantity', 1.5);
    assert.equal(e.message, 'quantity must be a decimal string such as "1.5" (not a JSON number).');
    for (const bad of ['1e3', '.5', '5.', ' 1', '+1', '1,000', '', '0x10']) {
      expectInvalidValue({ ...market, quantity: bad }, 'quantity', bad);
    }
    expectInvalidValue({ ...limit, limit_price: 1.1 }, 'limit_price', 1.1);
    expectInvalidValue({ ...market, leverage: 10 }, 'leverage', 10);
  });

  it('refuses a zero or negative quantity or price', () => {
    const zero = expectInvalidValue({ ...market, quantity: '0' }, 'quantity', '0');
    assert.equal(zero.message, 'quantity must be greater than 0.');
    expectInvalidValue({ ...market, quantity: '-1' }, 'quantity', '-1');
    expectInvalidValue({ ...market, quantity: '0.000' }, 'quantity', '0.000');
    expectInvalidValue({ ...market, order_type: 'STOP', stop_price: '0' }, 'stop_price', '0');
    expectInvalidValue({ ...limit, take_profit: '-1.2' }, 'take_profit', '-1.2');
    expectInvalidValue({ ...limit, display_quantity: '0' }, 'display_quantity', '0');
  });

  it('refuses a price off the tick size, and accepts trailing zeros on it', () => {
    const e = expectInvalidValue({ ...limit, limit_price: '1.10005' }, 'limit_price', '1.10005');
    assert.equal(e.details.tick_size, '0.0001');
    assert.equal(e.message, 'limit_price must be a multiple of the tick size 0.0001.');
    expectInvalidValue({ ...limit, stop_loss: '1.09995' }, 'stop_loss', '1.09995');
    expectInvalidValue({ ...limit, take_profit: '1.20001' }, 'take_profit', '1.20001');
    assert.equal(
      toDecimalString(
        parsed(validateOrderRequest({ ...limit, limit_price: '1.100000' }, rules)).limit_price as Dec,
      ),
      '1.1',
    );
    // No tick size: any positive price. Quantities are never tick-checked.
    const { tickSize: _t, ...noTick } = rules;
    assert.equal(
      parsed(validateOrderRequest({ ...limit, limit_price: '1.10005' }, noTick)).limit_price?.toString(),
      '1.10005',
    );
    assert.equal(
      parsed(validateOrderRequest({ ...market, quantity: '0.00001' }, rules)).quantity.toString(),
      '0.00001',
    );
  });

  it('checks enums, booleans and ids of the optional fields', () => {
    expectInvalidValue({ ...market, time_in_force: 'GTD' }, 'time_in_force', 'GTD');
    expectInvalidValue({ ...market, client_order_id: '' }, 'client_order_id', '');
    expectInvalidValue({ ...market, client_order_id: 7 }, 'client_order_id', 7);
    expectInvalidValue({ ...market, client_order_id: 'x'.repeat(129) }, 'client_order_id', 'x'.repeat(129));
    assert.equal(
      parsed(validateOrderRequest({ ...market, client_order_id: 'x'.repeat(128) }, rules)).client_order_id
        ?.length,
      128,
    );
    expectInvalidValue({ ...market, reduce_only: 'true' }, 'reduce_only', 'true');
    expectInvalidValue({ ...limit, post_only: 1 }, 'post_only', 1);
    expectInvalidValue({ ...market, oco_group_id: {} }, 'oco_group_id', {});
    expectInvalidValue({ ...market, hidden: 'yes' }, 'hidden', 'yes');
    expectInvalidValue({ ...market, margin_mode: 'cross' }, 'margin_mode', 'cross');
    expectInvalidValue({ ...market, position_id: '' }, 'position_id', '');
    expectInvalidValue({ ...market, trailing_type: 'POINTS' }, 'trailing_type', 'POINTS');
  });

  it('takes leverage from 1 to max_leverage', () => {
    const low = expectInvalidValue({ ...market, leverage: '0.5' }, 'leverage', '0.5');
    assert.equal(low.message, 'leverage must be between 1 and max_leverage (50).');
    assert.equal(low.details.max_leverage, '50');
    expectInvalidValue({ ...market, leverage: '50.01' }, 'leverage', '50.01');
    expectInvalidValue({ ...market, leverage: '0' }, 'leverage', '0');
    assert.equal(
      parsed(validateOrderRequest({ ...market, leverage: '50' }, rules)).leverage?.toString(),
      '50',
    );
    assert.equal(parsed(validateOrderRequest({ ...market, leverage: '1' }, rules)).leverage?.toString(), '1');
  });

  it('checks trailing_distance against the tick (ABSOLUTE, the default) or below 100 (PERCENT)', () => {
    const trailing = { ...market, order_type: 'TRAILING_STOP' };
    expectInvalidValue({ ...trailing, trailing_distance: '0.00015' }, 'trailing_distance', '0.00015');
    expectInvalidValue(
      { ...trailing, trailing_distance: '0.00015', trailing_type: 'ABSOLUTE' },
      'trailing_distance',
      '0.00015',
    );
    assert.equal(
      parsed(
        validateOrderRequest({ ...trailing, trailing_distance: '0.00015', trailing_type: 'PERCENT' }, rules),
      ).trailing_distance?.toString(),
      '0.00015',
    );
    const pct = expectInvalidValue(
      { ...trailing, trailing_distance: '100', trailing_type: 'PERCENT' },
      'trailing_distance',
      '100',
    );
    assert.equal(pct.message, 'A PERCENT trailing_distance must be below 100.');
    expectInvalidValue({ ...trailing, trailing_distance: '-1' }, 'trailing_distance', '-1');
  });

  it('reports the first bad field in the spec table order', () => {
    expectInvalidValue({ ...market, side: 'LONG', quantity: '-1', order_type: 'X' }, 'side', 'LONG');
    expectInvalidValue({ ...market, quantity: 1, order_type: 'X' }, 'quantity', 1);
    // A value error wins over a cross-field error.
    expectInvalidValue({ ...market, order_type: 'LIMIT', hidden: 0 }, 'hidden', 0);
  });
});

describe('validateOrderRequest: VALIDATION_ERROR with the validator report', () => {
  it('requires the conditional prices of each order type', () => {
    expectIssues({ ...market, order_type: 'LIMIT' }, [
      { field: 'limit_price', message: 'limit_price is required for LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'LIMIT', limit_price: null }, [
      { field: 'limit_price', message: 'limit_price is required for LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP' }, [
      { field: 'stop_price', message: 'stop_price is required for STOP orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP_LIMIT' }, [
      { field: 'limit_price', message: 'limit_price is required for STOP_LIMIT orders.' },
      { field: 'stop_price', message: 'stop_price is required for STOP_LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP_LIMIT', stop_price: '1.2' }, [
      { field: 'limit_price', message: 'limit_price is required for STOP_LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'TRAILING_STOP', trailing_type: 'PERCENT' }, [
      { field: 'trailing_distance', message: 'trailing_distance is required for TRAILING_STOP orders.' },
    ]);
  });

  it('refuses prices the order type does not use', () => {
    expectIssues({ ...market, limit_price: '1.1', stop_price: '1.2' }, [
      { field: 'limit_price', message: 'limit_price is not used by MARKET orders.' },
      { field: 'stop_price', message: 'stop_price is not used by MARKET orders.' },
    ]);
    expectIssues({ ...limit, trailing_distance: '0.001', trailing_type: 'ABSOLUTE' }, [
      { field: 'trailing_distance', message: 'trailing_distance is not used by LIMIT orders.' },
      { field: 'trailing_type', message: 'trailing_type is not used by LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', limit_price: '1.1' }, [
      { field: 'limit_price', message: 'limit_price is not used by STOP orders.' },
    ]);
    // Sent as null, an unused field is simply absent.
    assert.equal(validateOrderRequest({ ...market, limit_price: null, trailing_type: null }, rules).ok, true);
  });

  it('refuses post_only with an order that always takes, or with IOC/FOK', () => {
    expectIssues({ ...limit, post_only: true, time_in_force: 'FOK' }, [
      { field: 'post_only', message: 'post_only cannot be combined with FOK, which must fill at once.' },
    ]);
    expectIssues({ ...limit, post_only: true, time_in_force: 'IOC' }, [
      { field: 'post_only', message: 'post_only cannot be combined with IOC, which must fill at once.' },
    ]);
    expectIssues({ ...market, post_only: true, time_in_force: 'IOC' }, [
      {
        field: 'post_only',
        message: 'post_only needs a LIMIT or STOP_LIMIT order: a MARKET order always takes liquidity.',
      },
      { field: 'post_only', message: 'post_only cannot be combined with IOC, which must fill at once.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', post_only: true }, [
      {
        field: 'post_only',
        message: 'post_only needs a LIMIT or STOP_LIMIT order: a STOP order always takes liquidity.',
      },
    ]);
    // post_only false is no constraint; FOK alone is fine.
    assert.equal(validateOrderRequest({ ...market, post_only: false, time_in_force: 'FOK' }, rules).ok, true);
    assert.equal(validateOrderRequest({ ...limit, post_only: true, time_in_force: 'DAY' }, rules).ok, true);
  });

  it('puts brackets on the protective side of the entry', () => {
    expectIssues({ ...limit, limit_price: '1.1000', stop_loss: '1.1050', take_profit: '1.0900' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.1).' },
      { field: 'take_profit', message: 'take_profit of a BUY order must be above its limit_price (1.1).' },
    ]);
    expectIssues({ ...limit, stop_loss: '1.1' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.1).' },
    ]);
    expectIssues({ ...limit, side: 'SELL', stop_loss: '1.09', take_profit: '1.11' }, [
      { field: 'stop_loss', message: 'stop_loss of a SELL order must be above its limit_price (1.1).' },
      { field: 'take_profit', message: 'take_profit of a SELL order must be below its limit_price (1.1).' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', stop_loss: '1.21' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its stop_price (1.2).' },
    ]);
    // STOP_LIMIT: the limit is the worst entry, so the brackets are judged against it.
    expectIssues(
      { ...market, order_type: 'STOP_LIMIT', stop_price: '1.2', limit_price: '1.21', stop_loss: '1.215' },
      [{ field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.21).' }],
    );
    // Without an entry price, the stop-loss and take-profit are judged against each other.
    expectIssues({ ...market, stop_loss: '1.2', take_profit: '1.1' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its take_profit.' },
    ]);
    expectIssues({ ...market, side: 'SELL', stop_loss: '1.1', take_profit: '1.1' }, [
      { field: 'stop_loss', message: 'stop_loss of a SELL order must be above its take_profit.' },
    ]);
    assert.equal(validateOrderRequest({ ...limit, stop_loss: '1.09', take_profit: '1.12' }, rules).ok, true);
    assert.equal(
      validateOrderRequest({ ...limit, side: 'SELL', stop_loss: '1.11', take_profit: '1.05' }, rules).ok,
      true,
    );
    assert.equal(validateOrderRequest({ ...market, stop_loss: '1.05' }, rules).ok, true);
  });

  it('refuses a display quantity above the quantity and a bracket on a reduce-only order', () => {
    expectIssues({ ...limit, display_quantity: '1000.5' }, [
      { field: 'display_quantity', message: 'display_quantity must not exceed quantity.' },
    ]);
    expectIssues({ ...market, reduce_only: true, take_profit: '1.2' }, [
      {
        field: 'reduce_only',
        message: 'A reduce_only order opens no position for stop_loss or take_profit to protect.',
      },
    ]);
    assert.equal(validateOrderRequest({ ...limit, display_quantity: '1000', hidden: true }, rules).ok, true);
  });
});

describe('validateOrderRequest: a body of the required fields only', () => {
  it('is validated as the same body with an absent optional field is, field by field', () => {
    const value = fc.oneof(
      fc.constantFrom('F:EURUSD', 'X:NONE', 'BUY', 'SELL', 'MARKET', 'LIMIT', 'TRAILING_STOP', '1', '0'),
      fc.constantFrom('-1', '1.5', '', ' ', null, 1, true),
    );
    const body = fc.record(
      { symbol: value, side: value, quantity: value, order_type: value },
      {
        requiredKeys: [],
      },
    );
    fc.assert(
      fc.property(body, (required) => {
        const fast = validateOrderRequest({ ...required }, rules);
        // A null field counts as absent, but its name sends the body down the field-by-field path.
        const slow = validateOrderRequest({ ...required, hidden: null }, rules);
        assert.deepEqual(fast, slow);
        assert.deepEqual(validateOrderRequest(Object.assign(Object.create(null), required), rules), slow);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });

  it('reads a field the body inherits or defines non-enumerable', () => {
    const inherited = Object.assign(Object.create({ time_in_force: 'XYZ' }), market);
    assert.equal(error(validateOrderRequest(inherited, rules)).details.field, 'time_in_force');
    const hidden = Object.defineProperty({ ...market }, 'limit_price', { value: '1.1' });
    const refused = error(validateOrderRequest(hidden, rules));
    assert.equal(refused.code, 'VALIDATION_ERROR');
  });
});

describe('validateOrderRequest: decimals shared between requests', () => {
  it('gives requests of the same text one decimal, of its value, and parses each new text anew', () => {
    const parse = (quantity: string) => {
      const result = validateOrderRequest({ ...market, quantity }, rules);
      assert.ok(result.ok);
      return result.ok ? result.order.quantity : new Dec(0);
    };
    assert.equal(parse('1.50'), parse('1.50'));
    assert.equal(toDecimalString(parse('1.50')), '1.5');
    // Past the table's capacity, old texts are parsed again, to the same values.
    for (let index = 1; index <= 600; index++) assert.equal(toDecimalString(parse(`${index}.0`)), `${index}`);
    assert.equal(toDecimalString(parse('1.50')), '1.5');
  });
});

describe('validateOrderRequest: valid requests', () => {
  it('parses decimals, applies defaults and ignores unknown fields', () => {
    const result = validateOrderRequest(
      {
        ...market,
        quantity: '1000.50',
        order_type: 'TRAILING_STOP',
        trailing_distance: '0.0020',
        client_order_id: 'c-1',
        stop_loss: null,
        comment: 'unknown fields are ignored',
      },
      rules,
    );
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.equal(result.rejectReason, null);
    const o = result.order;
    assert.deepEqual(Object.keys(o).sort(), [
      'client_order_id',
      'order_type',
      'quantity',
      'side',
      'symbol',
      'time_in_force',
      'trailing_distance',
      'trailing_type',
    ]);
    assert.ok(o.quantity instanceof Dec);
    assert.equal(toDecimalString(o.quantity), '1000.5');
    assert.equal(toDecimalString(o.trailing_distance as Dec), '0.002');
    assert.equal(o.time_in_force, 'GTC');
    assert.equal(o.trailing_type, 'ABSOLUTE');
    assert.equal(parsed(validateOrderRequest(limit, rules)).trailing_type, undefined);
  });

  it('keeps every optional field it is given', () => {
    const o = parsed(
      validateOrderRequest(
        {
          symbol: 'F:EURUSD',
          side: 'SELL',
          quantity: '5000',
          order_type: 'STOP_LIMIT',
          limit_price: '1.0990',
          stop_price: '1.1000',
          time_in_force: 'DAY',
          client_order_id: 'abc',
          stop_loss: '1.1100',
          take_profit: '1.0800',
          reduce_only: false,
          post_only: true,
          oco_group_id: 'g1',
          hidden: false,
          display_quantity: '1000',
          leverage: '20',
          margin_mode: 'ISOLATED',
          position_id: 'p1',
        },
        rules,
      ),
    );
    assert.deepEqual(canonicalOrderRequest(o), {
      symbol: 'F:EURUSD',
      side: 'SELL',
      quantity: '5000',
      order_type: 'STOP_LIMIT',
      limit_price: '1.099',
      stop_price: '1.1',
      time_in_force: 'DAY',
      client_order_id: 'abc',
      stop_loss: '1.11',
      take_profit: '1.08',
      reduce_only: false,
      post_only: true,
      oco_group_id: 'g1',
      hidden: false,
      display_quantity: '1000',
      leverage: '20',
      margin_mode: 'ISOLATED',
      position_id: 'p1',
    });
  });

  it('accepts an unknown symbol and marks it for an engine rejection', () => {
    const result = validateOrderRequest({ ...market, symbol: 'F:XXXYYY' }, rules);
    assert.equal(result.ok, true);
    if (result.ok) assert.equal(result.rejectReason, 'SYMBOL_NOT_TRADEABLE');
    // A 400 still comes first.
    assert.equal(
      error(validateOrderRequest({ ...market, symbol: 'F:XXXYYY', quantity: '0' }, rules)).code,
      'INVALID_VALUE',
    );
  });
});

describe('rejectCodeFor', () => {
  it('maps rejections to the canonical REST hints, others passing through', () => {
    assert.deepEqual(REJECT_CODES, {
      INSUFFICIENT_MARGIN: 'INSUFFICIENT_FUNDS',
      INSUFFICIENT_BALANCE: 'INSUFFICIENT_FUNDS',
      INVALID_QUANTITY: 'INVALID_QUANTITY',
      INVALID_PRICE: 'INVALID_PRICE',
      SYMBOL_NOT_TRADEABLE: 'INVALID_SYMBOL',
      MARKET_CLOSED: 'MARKET_CLOSED',
      REDUCE_ONLY_VIOLATED: 'REDUCE_ONLY_VIOLATED',
      POST_ONLY_VIOLATED: 'POST_ONLY_VIOLATED',
      RATE_LIMITED: 'RATE_LIMITED',
      UNKNOWN: 'UNKNOWN',
    });
    for (const reason of REJECT_REASONS) assert.equal(rejectCodeFor(reason), REJECT_CODES[reason]);
  });
});

describe('sameOrderRequest (decision 19)', () => {
  const p = (body: object) => parsed(validateOrderRequest(body, rules));

  it('treats equal decimals and spelled-out defaults as identical', () => {
    assert.ok(sameOrderRequest(p({ ...limit, quantity: '1000.00', limit_price: '1.10' }), p(limit)));
    assert.ok(sameOrderRequest(p({ ...limit, time_in_force: 'GTC' }), p(limit)));
    assert.ok(
      sameOrderRequest(p({ ...limit, reduce_only: false, post_only: false, hidden: false }), p(limit)),
    );
    assert.ok(sameOrderRequest(p({ ...limit, stop_loss: null }), p(limit)));
    const trailing = { ...market, order_type: 'TRAILING_STOP', trailing_distance: '0.002' };
    assert.ok(sameOrderRequest(p({ ...trailing, trailing_type: 'ABSOLUTE' }), p(trailing)));
  });

  it('tells different bodies apart', () => {
    assert.equal(sameOrderRequest(p({ ...limit, quantity: '1001' }), p(limit)), false);
    assert.equal(sameOrderRequest(p({ ...limit, side: 'SELL' }), p(limit)), false);
    assert.equal(sameOrderRequest(p({ ...limit, time_in_force: 'DAY' }), p(limit)), false);
    assert.equal(sameOrderRequest(p({ ...limit, reduce_only: true }), p(limit)), false);
    assert.equal(sameOrderRequest(p({ ...limit, leverage: '50' }), p(limit)), false);
    assert.equal(
      sameOrderRequest(p({ ...limit, client_order_id: 'a' }), p({ ...limit, client_order_id: 'b' })),
      false,
    );
  });
});

describe('validateModifyOrderRequest', () => {
  const current = {
    side: 'BUY' as const,
    order_type: 'LIMIT' as const,
    time_in_force: 'GTC' as const,
    status: 'PARTIALLY_FILLED' as const,
    quantity: new Dec('1000'),
    filled_quantity: new Dec('400'),
    limit_price: new Dec('1.1'),
    stop_price: null,
    stop_loss: new Dec('1.09'),
    take_profit: null,
    trailing_distance: null,
    trailing_type: null,
  };

  it('returns the non-null changes, parsed', () => {
    const result = validateModifyOrderRequest(
      { quantity: '400', limit_price: '1.1050', stop_price: null },
      current,
      rules,
    );
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual(Object.keys(result.changes), ['quantity', 'limit_price']);
    assert.equal(toDecimalString(result.changes.limit_price as Dec), '1.105');
    const empty = validateModifyOrderRequest({}, current, rules);
    assert.deepEqual(empty, { ok: true, changes: {} });
  });

  it('refuses a quantity below the filled quantity, bad decimals and off-tick prices', () => {
    const below = error(validateModifyOrderRequest({ quantity: '399.9' }, current, rules));
    assert.equal(below.code, 'INVALID_VALUE');
    assert.deepEqual(below.details, { field: 'quantity', provided: '399.9', filled_quantity: '400' });
    const num = error(validateModifyOrderRequest({ limit_price: 1.2 }, current, rules));
    assert.deepEqual(
      [num.code, num.details.field, num.details.provided],
      ['INVALID_VALUE', 'limit_price', 1.2],
    );
    const tick = error(validateModifyOrderRequest({ take_profit: '1.12345' }, current, rules));
    assert.deepEqual(
      [tick.code, tick.details.field, tick.details.provided],
      ['INVALID_VALUE', 'take_profit', '1.12345'],
    );
    const body = error(validateModifyOrderRequest([], current, rules));
    assert.deepEqual([body.code, body.details], ['INVALID_REQUEST', { provided: 'array' }]);
  });

  it('applies the cross-field rules to the modified order', () => {
    const unused = error(validateModifyOrderRequest({ stop_price: '1.2' }, current, rules));
    assert.equal(unused.code, 'VALIDATION_ERROR');
    assert.deepEqual(unused.details, {
      errors: [{ field: 'stop_price', message: 'stop_price is not used by LIMIT orders.' }],
    });
    // Moving the limit under the resting stop-loss puts the stop-loss on the wrong side.
    const crossed = error(validateModifyOrderRequest({ limit_price: '1.08' }, current, rules));
    assert.deepEqual(crossed.details, {
      errors: [
        { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.08).' },
      ],
    });
  });

  it('checks a trailing distance by the order trailing type', () => {
    const trailing = {
      ...current,
      order_type: 'TRAILING_STOP' as const,
      limit_price: null,
      stop_loss: null,
      trailing_distance: new Dec('1'),
      trailing_type: 'PERCENT' as const,
    };
    assert.equal(validateModifyOrderRequest({ trailing_distance: '0.00015' }, trailing, rules).ok, true);
    const pct = error(validateModifyOrderRequest({ trailing_distance: '100' }, trailing, rules));
    assert.deepEqual([pct.code, pct.details.field], ['INVALID_VALUE', 'trailing_distance']);
    const abs = error(
      validateModifyOrderRequest(
        { trailing_distance: '0.00015' },
        { ...trailing, trailing_type: 'ABSOLUTE' },
        rules,
      ),
    );
    assert.deepEqual([abs.code, abs.details.field], ['INVALID_VALUE', 'trailing_distance']);
  });
});
