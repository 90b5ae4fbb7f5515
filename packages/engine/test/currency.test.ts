import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import {
  CurrencyConversionError,
  CurrencyConverter,
  findConversionPair,
  unconvertible,
} from '../src/index.ts';

const USDJPY = { symbol: 'F:USDJPY', underlying: 'USD', denomination: 'JPY' };
const EURJPY = { symbol: 'F:EURJPY', underlying: 'EUR', denomination: 'JPY' };
const EURUSD = { symbol: 'F:EURUSD', underlying: 'EUR', denomination: 'USD' };
const BTCUSD = { symbol: 'C:BTCUSD', underlying: 'BTC', denomination: 'USD' };
const SAP = { symbol: 'S:SAP', underlying: 'SAP', denomination: 'EUR' };
const EURGBP = { symbol: 'F:EURGBP', underlying: 'EUR', denomination: 'GBP' };
const USDCHF = { symbol: 'F:USDCHF', underlying: 'USD', denomination: 'CHF' };

describe('currency conversion to USD (decision 1)', () => {
  it('finds the conversion pair of each currency among the instruments', () => {
    assert.deepEqual(findConversionPair('JPY', [EURJPY, USDJPY]), {
      currency: 'JPY',
      symbol: 'F:USDJPY',
      operation: 'divide',
    });
    assert.deepEqual(findConversionPair('EUR', [SAP, EURUSD]), {
      currency: 'EUR',
      symbol: 'F:EURUSD',
      operation: 'multiply',
    });
    assert.equal(findConversionPair('JPY', [EURJPY]), undefined, 'a cross is not a conversion pair');
    const converter = new CurrencyConverter([BTCUSD, EURJPY, USDJPY, USDCHF]);
    assert.deepEqual(converter.conversionSymbols(), ['F:USDCHF', 'F:USDJPY']);
    assert.equal(converter.pairFor('USD'), undefined);
  });

  it('lists the instruments whose denomination cannot be converted', () => {
    assert.deepEqual(unconvertible([BTCUSD, USDJPY, EURJPY, EURUSD]), []);
    assert.deepEqual(unconvertible([EURJPY, BTCUSD]), ['F:EURJPY']);
    assert.deepEqual(unconvertible([SAP, EURGBP, USDJPY]), ['F:EURGBP', 'S:SAP']);
    assert.deepEqual(CurrencyConverter.unconvertible([EURGBP]), ['F:EURGBP']);
  });

  it('divides by the USDJPY mid, also for a JPY cross, and refuses before the first quote', () => {
    const converter = new CurrencyConverter([USDJPY, EURJPY]);
    assert.equal(converter.canConvert('JPY'), false);
    assert.throws(() => converter.toUsd(new Dec(5000), 'JPY'), CurrencyConversionError);
    assert.throws(() => converter.toUsd(new Dec(5000), 'JPY'), /no quote of F:USDJPY yet/);
    assert.equal(converter.updateQuote('F:EURJPY', new Dec('160'), new Dec('160.02')), false);
    assert.equal(converter.updateQuote('F:USDJPY', new Dec('93.499'), new Dec('93.5')), true);
    assert.equal(toDecimalString(converter.midFor('JPY') as Dec), '93.4995');
    // 5000 / 93.4995, to 60 significant digits.
    assert.equal(
      toDecimalString(converter.toUsd(new Dec(5000), 'JPY')),
      '53.4762217979775292916004898421916694741683110604869544756924',
    );
    converter.updateQuote('F:USDJPY', new Dec('149.99'), new Dec('150.01'));
    assert.equal(toDecimalString(converter.toUsd(new Dec('-300'), 'JPY')), '-2');
  });

  it('multiplies by the EURUSD mid, and USD is the identity', () => {
    const converter = new CurrencyConverter([SAP, EURUSD, BTCUSD]);
    converter.updateQuote('F:EURUSD', new Dec('1.0999'), new Dec('1.1001'));
    assert.equal(toDecimalString(converter.toUsd(new Dec(100), 'EUR')), '110');
    assert.equal(toDecimalString(converter.toUsd(new Dec('12.345'), 'USD')), '12.345');
    assert.equal(converter.canConvert('USD'), true);
  });

  it('names the missing pair for an unconvertible currency and refuses a non-positive mid', () => {
    const converter = new CurrencyConverter([EURGBP, USDJPY]);
    assert.throws(() => converter.toUsd(new Dec(1), 'GBP'), /no USDGBP or GBPUSD instrument/);
    assert.throws(() => converter.updateQuote('F:USDJPY', new Dec(0), new Dec(0)), RangeError);
  });
});
