import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { DENIAL_CODES, type Denial, REJECT_REASONS } from '@hindsight/engine';
import fc from 'fast-check';
import { GATEWAY_ERROR_CODES } from '../src/errors.ts';
import {
  closePositionRequestSchema,
  exitLegsRequestSchema,
  modifyOrderRequestSchema,
  orderRequestSchema,
} from '../src/http/schemas.ts';
import {
  canonicalOrderRequest,
  createdHandle,
  DENIAL_ERRORS,
  denialError,
  type OrderRequestRules,
  type Parsed,
  parseClosePositionRequest,
  parseExitLegsRequest,
  parseModifyOrderRequest,
  parseOrderRequest,
  REJECT_CODES,
  rejectCodeFor,
  rejectedError,
  sameOrderRequest,
  type WireError,
} from '../src/protocol/index.ts';

/**
 * The protocol module: request bodies into the engine's typed commands (shape and strictness, then
 * each field; the rules between fields are the engine's, engine/test/order-rules.test.ts), and the
 * table from the engine's answers to the spec's ApiErrors.
 */
const rules: OrderRequestRules = { tickSize: '0.0001', maxLeverage: '50' };
const market = { symbol: 'F:EURUSD', side: 'BUY', quantity: '1000', order_type: 'MARKET' };
const limit = { ...market, order_type: 'LIMIT', limit_price: '1.1' };
const validateOrderRequest = parseOrderRequest;

function error(result: Parsed<unknown>): WireError {
  assert.equal(result.ok, false, 'expected a rejection of the request');
  if (result.ok) throw new Error('unreachable');
  return result;
}
function parsed<T>(result: Parsed<T>): T {
  if (!result.ok) assert.fail(`expected a valid request, got ${result.code}: ${result.message}`);
  return result.value;
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

describe('parseOrderRequest: INVALID_REQUEST', () => {
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

describe('parseOrderRequest: INVALID_VALUE with details.field and details.provided', () => {
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

  it('checks trailing_distance against the tick when ABSOLUTE (the default)', () => {
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
    // A PERCENT distance of 100 or more parses: the engine denies it (TRAILING_DISTANCE_TOO_LARGE).
    assert.equal(
      parsed(validateOrderRequest({ ...trailing, trailing_distance: '100', trailing_type: 'PERCENT' }, rules))
        .trailing_type,
      'PERCENT',
    );
    expectInvalidValue({ ...trailing, trailing_distance: '-1' }, 'trailing_distance', '-1');
  });

  it('reports the first bad field in the spec table order', () => {
    expectInvalidValue({ ...market, side: 'LONG', quantity: '-1', order_type: 'X' }, 'side', 'LONG');
    expectInvalidValue({ ...market, quantity: 1, order_type: 'X' }, 'quantity', 1);
    // A value error wins over a cross-field error.
    expectInvalidValue({ ...market, order_type: 'LIMIT', hidden: 0 }, 'hidden', 0);
  });
});

describe('parseOrderRequest: a body of the required fields only', () => {
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
    assert.equal(parsed(validateOrderRequest(hidden, rules)).limit_price?.toString(), '1.1');
  });
});

describe('parseOrderRequest: decimals shared between requests', () => {
  it('gives requests of the same text one decimal, of its value, and parses each new text anew', () => {
    const parse = (quantity: string) => {
      const result = validateOrderRequest({ ...market, quantity }, rules);
      assert.ok(result.ok);
      return result.ok ? result.value.quantity : new Dec(0);
    };
    assert.equal(parse('1.50'), parse('1.50'));
    assert.equal(toDecimalString(parse('1.50')), '1.5');
    // Past the table's capacity, old texts are parsed again, to the same values.
    for (let index = 1; index <= 600; index++) assert.equal(toDecimalString(parse(`${index}.0`)), `${index}`);
    assert.equal(toDecimalString(parse('1.50')), '1.5');
  });
});

describe('parseOrderRequest: valid requests', () => {
  it('parses decimals, applies defaults and takes a null as omitted', () => {
    const result = validateOrderRequest(
      {
        ...market,
        quantity: '1000.50',
        order_type: 'TRAILING_STOP',
        trailing_distance: '0.0020',
        client_order_id: 'c-1',
        stop_loss: null,
      },
      rules,
    );
    assert.equal(result.ok, true);
    if (!result.ok) return;
    const o = result.value;
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

  it('leaves an unknown symbol, and the rules between fields, to the engine', () => {
    assert.equal(parsed(validateOrderRequest({ ...market, symbol: 'F:XXXYYY' }, rules)).symbol, 'F:XXXYYY');
    assert.equal(
      parsed(validateOrderRequest({ ...market, order_type: 'LIMIT' }, rules)).limit_price,
      undefined,
    );
    // A value error is still a 400 here.
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

describe('parseModifyOrderRequest', () => {
  it('returns the non-null changes, parsed; at least one is required', () => {
    const result = parseModifyOrderRequest(
      { quantity: '400', limit_price: '1.1050', stop_price: null },
      rules,
    );
    assert.equal(result.ok, true);
    if (!result.ok) return;
    assert.deepEqual(Object.keys(result.value), ['quantity', 'limit_price']);
    assert.equal(toDecimalString(result.value.limit_price as Dec), '1.105');
    const empty = error(parseModifyOrderRequest({}, rules));
    assert.equal(empty.code, 'INVALID_REQUEST');
    assert.equal(
      empty.message,
      'Send at least one of quantity, limit_price, stop_price, stop_loss, take_profit, trailing_distance.',
    );
    assert.equal(error(parseModifyOrderRequest({ quantity: null }, rules)).code, 'INVALID_REQUEST');
  });

  it('refuses bad decimals, off-tick prices, a body that is not an object', () => {
    const num = error(parseModifyOrderRequest({ limit_price: 1.2 }, rules));
    assert.deepEqual(
      [num.code, num.details.field, num.details.provided],
      ['INVALID_VALUE', 'limit_price', 1.2],
    );
    const zero = error(parseModifyOrderRequest({ quantity: '0' }, rules));
    assert.deepEqual([zero.code, zero.details.field], ['INVALID_VALUE', 'quantity']);
    const tick = error(parseModifyOrderRequest({ take_profit: '1.12345' }, rules));
    assert.deepEqual(
      [tick.code, tick.details.field, tick.details.provided],
      ['INVALID_VALUE', 'take_profit', '1.12345'],
    );
    const body = error(parseModifyOrderRequest([], rules));
    assert.deepEqual([body.code, body.details], ['INVALID_REQUEST', { provided: 'array' }]);
  });

  it('checks a trailing distance against the tick by the order trailing type', () => {
    assert.equal(
      parseModifyOrderRequest({ trailing_distance: '0.00015' }, { ...rules, trailingType: 'PERCENT' }).ok,
      true,
    );
    const abs = error(
      parseModifyOrderRequest({ trailing_distance: '0.00015' }, { ...rules, trailingType: 'ABSOLUTE' }),
    );
    assert.deepEqual([abs.code, abs.details.field], ['INVALID_VALUE', 'trailing_distance']);
  });
});

describe('strict bodies (decision 38)', () => {
  it('names an unknown or misspelled field of an order request, before anything else', () => {
    const misspelled = error(validateOrderRequest({ ...market, stop_los: '1.05' }, rules));
    assert.equal(misspelled.code, 'INVALID_REQUEST');
    assert.deepEqual(misspelled.details, { field: 'stop_los', suggestion: 'stop_loss' });
    assert.match(misspelled.message, /^An OrderRequest has no field "stop_los"\. Did you mean stop_loss\?/);
    const unknown = error(validateOrderRequest({ ...market, comment: 'hello' }, rules));
    assert.deepEqual([unknown.code, unknown.details], ['INVALID_REQUEST', { field: 'comment' }]);
    // A null does not make a field known, and an unknown field is reported before a missing one.
    assert.deepEqual(error(validateOrderRequest({ symbol: 'F:EURUSD', quantty: null }, rules)).details, {
      field: 'quantty',
      suggestion: 'quantity',
    });
    assert.deepEqual(error(validateOrderRequest({ ...market, Side: 'BUY' }, rules)).details, {
      field: 'Side',
      suggestion: 'side',
    });
  });

  it('names an unknown field of a modification, a close and a leg move', () => {
    assert.deepEqual(error(parseModifyOrderRequest({ limit_prise: '1.1' })).details, {
      field: 'limit_prise',
      suggestion: 'limit_price',
    });
    assert.deepEqual(error(parseModifyOrderRequest({ symbol: 'F:EURUSD', quantity: '1' })).details, {
      field: 'symbol',
    });
    assert.deepEqual(error(parseClosePositionRequest({ quantity: '1', type: 'LIMIT' })).details, {
      field: 'type',
    });
    assert.deepEqual(error(parseExitLegsRequest({ stop_loss: '1', takeprofit: '2' })).details, {
      field: 'takeprofit',
      suggestion: 'take_profit',
    });
  });

  it("takes each body's fields from its schema, which the OpenAPI document shows as closed", () => {
    for (const [schema, parse, body] of [
      [orderRequestSchema, (b: unknown) => parseOrderRequest(b, rules), market],
      [modifyOrderRequestSchema, parseModifyOrderRequest, { quantity: '1' }],
      [closePositionRequestSchema, parseClosePositionRequest, {}],
      [exitLegsRequestSchema, parseExitLegsRequest, { stop_loss: '1' }],
    ] as const) {
      const fields = Object.keys(schema.shape);
      for (const field of fields) {
        const result = (parse as (b: unknown) => Parsed<unknown>)({ ...body, [field]: null });
        assert.ok(result.ok || !/has no field/.test(result.message), field);
      }
      assert.equal(schema.safeParse({ ...body, extra: 1 }).success, false);
    }
  });
});

describe('parseClosePositionRequest and parseExitLegsRequest', () => {
  it('parses a close: no body is a full close at market, LIMIT needs its price', () => {
    assert.deepEqual(parsed(parseClosePositionRequest(undefined)), {
      order_type: 'MARKET',
      cancel_associated_orders: true,
    });
    const part = parsed(
      parseClosePositionRequest({
        quantity: '0.50',
        order_type: 'LIMIT',
        limit_price: '102',
        cancel_associated_orders: false,
      }),
    );
    assert.deepEqual(
      [part.order_type, toDecimalString(part.quantity as Dec), part.cancel_associated_orders],
      ['LIMIT', '0.5', false],
    );
    assert.equal(part.order_type === 'LIMIT' && toDecimalString(part.limit_price), '102');
    assert.equal(error(parseClosePositionRequest({ order_type: 'LIMIT' })).code, 'VALIDATION_ERROR');
    assert.equal(error(parseClosePositionRequest({ limit_price: '1' })).code, 'VALIDATION_ERROR');
    assert.equal(error(parseClosePositionRequest('all')).code, 'INVALID_REQUEST');
    assert.deepEqual(error(parseClosePositionRequest({ quantity: 2 })).details, {
      field: 'quantity',
      provided: 2,
    });
  });

  it('parses a leg move: at least one leg', () => {
    assert.equal(toDecimalString(parsed(parseExitLegsRequest({ stop_loss: '97.0' })).stop_loss as Dec), '97');
    assert.deepEqual(error(parseExitLegsRequest({})).details, { missing: ['stop_loss', 'take_profit'] });
    assert.equal(error(parseExitLegsRequest({ stop_loss: '-1' })).code, 'INVALID_VALUE');
  });
});

describe('the table from engine answers to ApiErrors', () => {
  it('maps every denial code to a registered ApiError code', () => {
    assert.deepEqual(Object.keys(DENIAL_ERRORS).sort(), [...DENIAL_CODES].sort());
    for (const { code } of Object.values(DENIAL_ERRORS)) assert.ok(GATEWAY_ERROR_CODES.includes(code));
  });

  it('echoes the value as sent for INVALID_VALUE, lists conflicts for VALIDATION_ERROR', () => {
    const below: Denial = {
      ok: false,
      code: 'QUANTITY_BELOW_FILLED',
      message: 'quantity must be at least the filled quantity 400.',
      field: 'quantity',
      provided: '399.9',
      facts: { filled_quantity: '400' },
    };
    const error400 = denialError(below, { quantity: '399.90' });
    assert.deepEqual(
      [error400.status, error400.toBody()],
      [
        400,
        {
          code: 'INVALID_VALUE',
          message: 'quantity must be at least the filled quantity 400.',
          details: { field: 'quantity', provided: '399.90', filled_quantity: '400' },
        },
      ],
    );
    const through = denialError({
      ok: false,
      code: 'BRACKET_THROUGH_MARKET',
      message: 'stop_loss 100.05 ... is already through the market',
      field: 'stop_loss',
      provided: '100.05',
    });
    assert.deepEqual(through.toBody().details, {
      errors: [{ field: 'stop_loss', message: 'stop_loss 100.05 ... is already through the market' }],
    });
    const conflict = denialError({
      ok: false,
      code: 'ORDER_FIELDS_CONFLICT',
      message: 'a; b',
      issues: [
        { field: 'limit_price', message: 'a' },
        { field: 'stop_price', message: 'b' },
      ],
    });
    assert.deepEqual(
      [conflict.code, conflict.message, conflict.toBody().details],
      [
        'VALIDATION_ERROR',
        'a; b',
        {
          errors: [
            { field: 'limit_price', message: 'a' },
            { field: 'stop_price', message: 'b' },
          ],
        },
      ],
    );
    const leg = denialError({
      ok: false,
      code: 'EXIT_LEG_THROUGH_MARKET',
      message: 'through',
      field: 'stop_loss',
      provided: '100.5',
      facts: { leg: 'stop_loss', market: '100.05' },
    });
    assert.deepEqual(
      [leg.status, leg.toBody().details],
      [409, { leg: 'stop_loss', market: '100.05', provided: '100.5' }],
    );
    const missing = denialError({ ok: false, code: 'UNKNOWN_ORDER', message: 'no', provided: 'ord-1' });
    assert.deepEqual(
      [missing.status, missing.code, missing.details],
      [404, 'ORDER_NOT_FOUND', { order_id: 'ord-1' }],
    );
  });

  it('answers a REJECTED order with 422 and its reject code', () => {
    const rejected = rejectedError('INSUFFICIENT_MARGIN', 'ord-000000007');
    assert.deepEqual(
      [rejected.status, rejected.toBody()],
      [
        422,
        {
          code: 'ORDER_REJECTED',
          message: 'The order was rejected (INSUFFICIENT_MARGIN): the free margin does not cover the order.',
          details: {
            reject_code: 'INSUFFICIENT_FUNDS',
            reject_reason: 'INSUFFICIENT_MARGIN',
            order_id: 'ord-000000007',
          },
        },
      ],
    );
  });

  it('gives the create response its handle with status PENDING', () => {
    assert.deepEqual(createdHandle({ id: 'ord-1', status: 'FILLED', client_order_id: 'c' }), {
      id: 'ord-1',
      status: 'PENDING',
      client_order_id: 'c',
    });
  });
});
