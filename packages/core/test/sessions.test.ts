import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketStart, fxDayStart, newYorkOffsetMs, nextFxRollover, weekStart } from '../src/market/index.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('New York sessions', () => {
  it('knows the New York offset on both sides of a DST change', () => {
    assert.equal(newYorkOffsetMs(at('2024-03-10T06:59:00Z')), -5 * 3_600_000);
    assert.equal(newYorkOffsetMs(at('2024-03-10T07:00:00Z')), -4 * 3_600_000);
    assert.equal(newYorkOffsetMs(at('2024-11-03T05:59:00Z')), -4 * 3_600_000);
    assert.equal(newYorkOffsetMs(at('2024-11-03T06:00:00Z')), -5 * 3_600_000);
  });

  it('rolls the FX day at 17:00 New York, in winter and in summer', () => {
    assert.equal(iso(fxDayStart(at('2024-03-08T21:59:00Z'))), '2024-03-07T22:00:00.000Z');
    assert.equal(iso(fxDayStart(at('2024-03-08T22:00:00Z'))), '2024-03-08T22:00:00.000Z');
    assert.equal(iso(fxDayStart(at('2024-03-11T21:00:00Z'))), '2024-03-11T21:00:00.000Z');
    assert.equal(iso(fxDayStart(at('2024-03-11T20:59:59Z'))), '2024-03-10T21:00:00.000Z');
    assert.equal(iso(nextFxRollover(at('2024-03-11T21:00:00Z'))), '2024-03-12T21:00:00.000Z');
    assert.equal(iso(nextFxRollover(at('2014-05-01T20:00:00Z'))), '2014-05-01T21:00:00.000Z');
  });

  it('starts FX weeks on Sunday 17:00 New York and crypto weeks on Monday 00:00 UTC', () => {
    assert.equal(iso(weekStart('fx', at('2024-03-13T12:00:00Z'))), '2024-03-10T21:00:00.000Z');
    assert.equal(iso(weekStart('fx', at('2024-03-10T20:00:00Z'))), '2024-03-03T22:00:00.000Z');
    assert.equal(iso(weekStart('utc', at('2024-01-07T23:59:00Z'))), '2024-01-01T00:00:00.000Z');
    assert.equal(iso(weekStart('utc', at('2024-01-08T00:00:00Z'))), '2024-01-08T00:00:00.000Z');
    assert.equal(iso(weekStart('us_equity', at('2011-03-16T15:00:00Z'))), '2011-03-14T04:00:00.000Z');
  });

  it('aligns minute and hour buckets to UTC and days per calendar', () => {
    const t = at('2024-01-15T13:47:00Z');
    assert.equal(iso(bucketStart('5m', 'fx', t)), '2024-01-15T13:45:00.000Z');
    assert.equal(iso(bucketStart('4h', 'utc', t)), '2024-01-15T12:00:00.000Z');
    assert.equal(iso(bucketStart('12h', 'utc', t)), '2024-01-15T12:00:00.000Z');
    assert.equal(iso(bucketStart('1d', 'utc', t)), '2024-01-15T00:00:00.000Z');
    assert.equal(iso(bucketStart('1d', 'fx', t)), '2024-01-14T22:00:00.000Z');
    assert.equal(iso(bucketStart('1d', 'us_equity', t)), '2024-01-15T05:00:00.000Z');
  });
});
