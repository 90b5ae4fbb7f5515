import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, type SessionCalendar, toDecimalString } from '@hindsight/core';
import { dayExpiry, expiresAt, immediateFill, isExpired, isImmediate } from '../src/orders/time-in-force.ts';

const at = (iso: string) => Date.parse(iso);
const expiry = (calendar: SessionCalendar, placed: string) =>
  new Date(dayExpiry(calendar, at(placed))).toISOString();

// US daylight saving 2024: EST (UTC-5) until Sunday 10 March 02:00, EDT (UTC-4) until Sunday 3 November 02:00.
describe('DAY expiry: FX at 17:00 New York, Monday to Friday', () => {
  it('expires the same day before 17:00, following DST', () => {
    assert.equal(expiry('fx', '2024-03-08T12:00:00Z'), '2024-03-08T22:00:00.000Z', 'Friday 07:00 EST');
    assert.equal(expiry('fx', '2024-03-11T12:00:00Z'), '2024-03-11T21:00:00.000Z', 'Monday 08:00 EDT');
    assert.equal(expiry('fx', '2024-11-01T12:00:00Z'), '2024-11-01T21:00:00.000Z', 'Friday 08:00 EDT');
    assert.equal(expiry('fx', '2024-11-04T12:00:00Z'), '2024-11-04T22:00:00.000Z', 'Monday 07:00 EST');
  });

  it('rolls to the next session end after 17:00, strictly after the placement', () => {
    assert.equal(expiry('fx', '2024-03-07T23:00:00Z'), '2024-03-08T22:00:00.000Z', 'Thursday 18:00 EST');
    assert.equal(expiry('fx', '2024-03-13T03:00:00Z'), '2024-03-13T21:00:00.000Z', 'Tuesday 23:00 EDT');
    assert.equal(
      expiry('fx', '2024-03-12T21:00:00Z'),
      '2024-03-13T21:00:00.000Z',
      'exactly Tuesday 17:00 EDT',
    );
    assert.equal(expiry('fx', '2024-03-12T20:59:59.999Z'), '2024-03-12T21:00:00.000Z');
  });

  it('skips the weekend rollovers, across the DST change', () => {
    // Friday 17:00 EST close -> Saturday 22:00Z and Sunday 21:00Z (now EDT) end no session -> Monday 17:00 EDT.
    assert.equal(expiry('fx', '2024-03-08T22:00:00Z'), '2024-03-11T21:00:00.000Z');
    assert.equal(
      expiry('fx', '2024-03-10T22:00:00Z'),
      '2024-03-11T21:00:00.000Z',
      'Sunday 18:00 EDT, after the open',
    );
    // Friday 17:00 EDT close -> Monday 17:00 EST.
    assert.equal(expiry('fx', '2024-11-01T21:00:00Z'), '2024-11-04T22:00:00.000Z');
    assert.equal(expiry('fx', '2024-11-02T15:00:00Z'), '2024-11-04T22:00:00.000Z', 'Saturday');
  });
});

describe('DAY expiry: crypto at 00:00 UTC, every day', () => {
  it('expires at the next UTC midnight, unaffected by DST and weekends', () => {
    assert.equal(expiry('utc', '2024-03-10T06:59:00Z'), '2024-03-11T00:00:00.000Z');
    assert.equal(expiry('utc', '2024-03-09T12:00:00Z'), '2024-03-10T00:00:00.000Z', 'Saturday');
    assert.equal(expiry('utc', '2024-11-03T05:30:00Z'), '2024-11-04T00:00:00.000Z');
    assert.equal(expiry('utc', '2024-03-11T00:00:00Z'), '2024-03-12T00:00:00.000Z', 'exactly midnight');
    assert.equal(expiry('utc', '2024-03-11T23:59:59.999Z'), '2024-03-12T00:00:00.000Z');
  });
});

describe('DAY expiry: stocks at 16:00 New York, Monday to Friday', () => {
  it('expires at the close of the day, following DST', () => {
    assert.equal(expiry('us_equity', '2024-03-08T15:00:00Z'), '2024-03-08T21:00:00.000Z', 'Friday 10:00 EST');
    assert.equal(expiry('us_equity', '2024-03-11T13:30:00Z'), '2024-03-11T20:00:00.000Z', 'Monday 09:30 EDT');
    assert.equal(expiry('us_equity', '2024-11-04T14:30:00Z'), '2024-11-04T21:00:00.000Z', 'Monday 09:30 EST');
    assert.equal(
      expiry('us_equity', '2024-03-13T03:00:00Z'),
      '2024-03-13T20:00:00.000Z',
      'Tuesday 23:00 EDT',
    );
  });

  it('after the close, expires at the next weekday close', () => {
    assert.equal(
      expiry('us_equity', '2024-03-12T22:00:00Z'),
      '2024-03-13T20:00:00.000Z',
      'Tuesday 18:00 EDT',
    );
    assert.equal(expiry('us_equity', '2024-03-12T20:00:00Z'), '2024-03-13T20:00:00.000Z', 'exactly 16:00');
    // Friday 16:00 EST -> Monday 16:00 EDT, over the spring-forward Sunday.
    assert.equal(expiry('us_equity', '2024-03-08T21:00:00Z'), '2024-03-11T20:00:00.000Z');
    // Friday 16:00 EDT -> Monday 16:00 EST, over the fall-back Sunday (01:30 occurs twice).
    assert.equal(expiry('us_equity', '2024-11-01T20:00:00Z'), '2024-11-04T21:00:00.000Z');
    assert.equal(expiry('us_equity', '2024-11-03T05:30:00Z'), '2024-11-04T21:00:00.000Z', 'Sunday 01:30 EDT');
    assert.equal(expiry('us_equity', '2024-11-03T06:30:00Z'), '2024-11-04T21:00:00.000Z', 'Sunday 01:30 EST');
    assert.equal(expiry('us_equity', '2024-11-04T03:00:00Z'), '2024-11-04T21:00:00.000Z', 'Sunday 22:00 EST');
  });
});

describe('time in force', () => {
  it('gives DAY orders an expiry and no other', () => {
    const placed = at('2024-03-08T12:00:00Z');
    assert.equal(expiresAt('DAY', 'fx', placed), at('2024-03-08T22:00:00Z'));
    assert.equal(expiresAt('GTC', 'fx', placed), null);
    assert.equal(expiresAt('IOC', 'utc', placed), null);
    assert.equal(expiresAt('FOK', 'us_equity', placed), null);
  });

  it('expires at the expiry instant, not before', () => {
    const t = at('2024-03-08T22:00:00Z');
    assert.equal(isExpired(t, t - 1), false);
    assert.equal(isExpired(t, t), true);
    assert.equal(isExpired(null, t), false);
    assert.deepEqual((['GTC', 'DAY', 'IOC', 'FOK'] as const).filter(isImmediate), ['IOC', 'FOK']);
  });

  it('fills IOC as far as it can and FOK all or nothing', () => {
    const show = (r: { fill: Dec; cancelled: Dec }) => [
      toDecimalString(r.fill),
      toDecimalString(r.cancelled),
    ];
    assert.deepEqual(show(immediateFill('IOC', new Dec(10), new Dec(4))), ['4', '6']);
    assert.deepEqual(show(immediateFill('IOC', new Dec(10), new Dec(15))), ['10', '0']);
    assert.deepEqual(show(immediateFill('IOC', new Dec(10), new Dec(0))), ['0', '10']);
    assert.deepEqual(show(immediateFill('FOK', new Dec(10), new Dec(4))), ['0', '10']);
    assert.deepEqual(show(immediateFill('FOK', new Dec(10), new Dec(10))), ['10', '0']);
    assert.deepEqual(show(immediateFill('FOK', new Dec(10), new Dec('9.99'))), ['0', '10']);
    assert.deepEqual(show(immediateFill('IOC', new Dec(10), new Dec(-1))), ['0', '10']);
  });
});
