import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  computeMetrics,
  DAY_MS,
  drawdownStats,
  type ExactSample,
  gridStepFor,
  type SamplePoint,
  type SampleSource,
  sampleTimeseries,
  TimeseriesSampler,
} from '../src/index.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const start = Date.parse('2024-01-01T00:00:00Z');

const point = (time: number, nav: string, extra: Partial<SamplePoint> = {}): SamplePoint => ({
  time,
  balance: '1000',
  nav,
  marginUsed: '0',
  ...extra,
});

describe('timeseries sampler', () => {
  it('starts with the run start at initialCapital and ends with the final point', () => {
    const file = sampleTimeseries({ startTime: start, endTime: start + DAY_MS, initialCapital: '1000.00' }, [
      point(start + MINUTE, '1000'),
      point(start + 2 * MINUTE, '1000', { marginUsed: '12.5' }),
    ]);
    assert.equal(file.timestamps[0], start);
    assert.equal(file.units[0], '1000');
    assert.equal(file.nav[0], '1000');
    assert.equal(file.margin_used[0], '0');
    assert.equal(file.timestamps.at(-1), start + 2 * MINUTE);
    assert.equal(file.margin_used.at(-1), '12.5');
  });

  it('yields only the start point when nothing is offered', () => {
    const file = new TimeseriesSampler({
      startTime: start,
      endTime: start + HOUR,
      initialCapital: '5',
    }).finish();
    assert.deepEqual(file, { timestamps: [start], units: ['5'], nav: ['5'], margin_used: ['0'] });
  });

  it('keeps flagged changes and balance changes, drops quiet points beyond the grid', () => {
    // 10-year window: the grid step is a day, so nothing intraday is kept unless mandatory.
    const sampler = new TimeseriesSampler({
      startTime: start,
      endTime: start + 3650 * DAY_MS,
      initialCapital: '1000',
    });
    assert.equal(sampler.gridStepMs, DAY_MS);
    // NAV wanders inside (999, 1000] without new peaks or troughs after the first dip.
    sampler.offer(point(start + 1 * HOUR, '999')); // first trough: kept, and the start (last at peak)
    sampler.offer(point(start + 2 * HOUR, '999.5')); // dropped
    sampler.offer(point(start + 3 * HOUR, '999.5', { changed: true })); // flagged: kept
    sampler.offer(point(start + 4 * HOUR, '999.6')); // dropped
    sampler.offer(point(start + 5 * HOUR, '999.6', { balance: '999' })); // balance changed: kept
    sampler.offer(point(start + 6 * HOUR, '999.7', { balance: '999' })); // dropped
    sampler.offer(point(start + 7 * HOUR, '999.8', { balance: '999' })); // final
    const file = sampler.finish();
    assert.deepEqual(
      file.timestamps.map((t) => (t - start) / HOUR),
      [0, 1, 3, 5, 7],
    );
    assert.deepEqual(file.units, ['1000', '1000', '1000', '999', '999']);
  });

  it('keeps the last point at or before each UTC midnight', () => {
    const file = sampleTimeseries(
      { startTime: start, endTime: start + 3650 * DAY_MS, initialCapital: '1000' },
      [
        point(start + 23 * HOUR, '1000'),
        point(start + DAY_MS - MINUTE, '1000'), // last before Jan 2 midnight
        point(start + DAY_MS + HOUR, '1000'),
        point(start + 2 * DAY_MS, '1000'), // exactly at Jan 3 midnight
        point(start + 2 * DAY_MS + HOUR, '1000'),
        point(start + 5 * DAY_MS + HOUR, '1000'), // last before Jan 4, 5, 6 midnights
        point(start + 6 * DAY_MS + HOUR, '1000'),
        point(start + 6 * DAY_MS + 2 * HOUR, '1000'), // final
      ],
    );
    assert.deepEqual(
      file.timestamps.map((t) => (t - start) / HOUR),
      [0, 23 + 59 / 60, 48, 48 + 1, 5 * 24 + 1, 6 * 24 + 2],
    );
  });

  it('keeps the last point before every grid step and midnight, whatever the gaps between points', () => {
    const gaps = fc.array(
      fc.oneof(fc.integer({ min: 1, max: 3 * MINUTE }), fc.integer({ min: 1, max: 3 * DAY_MS })),
      {
        minLength: 1,
        maxLength: 60,
      },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: -5 * DAY_MS, max: 5 * DAY_MS }),
        gaps,
        fc.integer({ min: 1, max: 5000 }),
        (offset, steps, maxGridPoints) => {
          const startTime = start + offset;
          const times: number[] = [];
          for (const gap of steps) times.push((times.at(-1) ?? startTime) + gap);
          const endTime = (times.at(-1) as number) + DAY_MS;
          const options = { startTime, endTime, initialCapital: '1000', maxGridPoints };
          const file = sampleTimeseries(
            options,
            times.map((time) => point(time, '1000')),
          );
          // A flat NAV keeps no peak or trough: the start, the boundary points and the final one.
          const grid = gridStepFor(startTime, endTime, maxGridPoints);
          const crosses = (a: number, b: number, step: number) => Math.ceil(a / step) * step < b;
          const expected = [startTime, ...times].filter(
            (time, index, all) =>
              index === 0 ||
              index === all.length - 1 ||
              crosses(time, all[index + 1] as number, DAY_MS) ||
              crosses(time, all[index + 1] as number, grid),
          );
          assert.deepEqual(file.timestamps, expected);
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 200) },
    );
  });

  it('keeps every new peak, the last point at the peak, recoveries and every new trough', () => {
    const file = sampleTimeseries(
      { startTime: start, endTime: start + 3650 * DAY_MS, initialCapital: '100' },
      [
        point(start + 1 * MINUTE, '101'), // new peak
        point(start + 2 * MINUTE, '102'), // new peak
        point(start + 3 * MINUTE, '102'), // at the peak, and the last one before the drop
        point(start + 4 * MINUTE, '99'), // first trough
        point(start + 5 * MINUTE, '100'), // dropped
        point(start + 6 * MINUTE, '98'), // new trough
        point(start + 7 * MINUTE, '98'), // dropped (not lower)
        point(start + 8 * MINUTE, '102'), // recovery at the peak value
        point(start + 9 * MINUTE, '102'), // dropped
        point(start + 10 * MINUTE, '101.5'), // drop: keeps 9 (last at peak) and itself
        point(start + 11 * MINUTE, '101.9'), // final
      ],
    );
    assert.deepEqual(
      file.timestamps.map((t) => (t - start) / MINUTE),
      [0, 1, 2, 3, 4, 6, 8, 9, 10, 11],
    );
  });

  it('chooses the grid step from the run window and caps optional points', () => {
    assert.equal(gridStepFor(start, start + DAY_MS), MINUTE);
    assert.equal(gridStepFor(start, start + 30 * DAY_MS), 30 * MINUTE);
    assert.equal(gridStepFor(start, start + 3650 * DAY_MS), DAY_MS);
    // A quiet 10-day 1m run (14400 bars, NAV constant): one point per grid step (10 min) plus start.
    const bars = 10 * 1440;
    const points = Array.from({ length: bars }, (_, i) => point(start + (i + 1) * MINUTE, '1000'));
    const file = sampleTimeseries(
      { startTime: start, endTime: start + 10 * DAY_MS, initialCapital: '1000' },
      points,
    );
    assert.equal(gridStepFor(start, start + 10 * DAY_MS), 10 * MINUTE);
    assert.equal(file.timestamps.length, bars / 10 + 1);
  });

  it('keeps a noisy 1-year 1m run small: its extrema plus at most one point per grid step', () => {
    // 525600 bars of a driftless integer random walk (xorshift32). The grid step is 6 h (1460 steps,
    // daily closes included). Mandatory extrema are counted independently here: new peaks, returns to
    // the peak after a drawdown, the last point at the peak before each drawdown, and new troughs.
    const sampler = new TimeseriesSampler({
      startTime: start,
      endTime: start + 365 * DAY_MS,
      initialCapital: '100000',
    });
    let x = 2463534242;
    let nav = 100000;
    let peak = nav;
    let trough = nav;
    let inDrawdown = false;
    const extrema = new Set<number>([0]); // indices of mandatory points; 0 is the run start
    for (let i = 1; i <= 365 * 1440; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      nav += ((x >>> 0) % 21) - 10;
      if (nav > peak || (nav === peak && inDrawdown)) extrema.add(i);
      if (nav >= peak) {
        peak = nav;
        inDrawdown = false;
      } else if (!inDrawdown || nav < trough) {
        if (!inDrawdown) extrema.add(i - 1);
        extrema.add(i);
        inDrawdown = true;
        trough = nav;
      }
      sampler.offer(point(start + i * MINUTE, String(nav), { balance: '100000' }));
    }
    const file = sampler.finish();
    assert.equal(sampler.gridStepMs, 6 * HOUR);
    const n = file.timestamps.length;
    const times = new Set(file.timestamps);
    for (const i of extrema) assert.ok(times.has(start + i * MINUTE), `index ${i}`);
    assert.ok(n <= extrema.size + 1460 + 1, `${n} points, ${extrema.size} extrema`);
    assert.ok(n < 10_000, `${n} points of 525600`);
  });

  it('offerLazy with refilled released sources writes the same file as offer', () => {
    /** A mutable source, as the engine's capture: refilled only once the sampler has released it. */
    class Refillable implements SampleSource {
      values: ExactSample = { balance: '0', nav: '0', marginUsed: '0' };
      sample(): ExactSample {
        return this.values;
      }
    }
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            step: fc.integer({ min: 1, max: 400 }),
            nav: fc.integer({ min: 900, max: 1100 }),
            fee: fc.boolean(),
          }),
          {
            maxLength: 300,
          },
        ),
        (steps) => {
          const options = {
            startTime: start,
            endTime: start + DAY_MS,
            initialCapital: '1000',
            maxGridPoints: 24,
          };
          const lazy = new TimeseriesSampler(options);
          const points: SamplePoint[] = [];
          let time = start;
          let balance = 1000;
          let version = 0;
          let made = 0;
          for (const { step, nav, fee } of steps) {
            time += step * MINUTE;
            if (fee) {
              balance -= 1;
              version += 1;
            }
            const values = { balance: String(balance), nav: String(nav), marginUsed: String(nav % 7) };
            points.push({ time, ...values });
            const released = lazy.releasedSource();
            const source = released instanceof Refillable ? released : new Refillable();
            if (source !== released) made += 1;
            source.values = values;
            lazy.offerLazy(time, nav, version, false, source);
          }
          assert.deepEqual(lazy.finish(), sampleTimeseries(options, points));
          assert.ok(made <= Math.max(1, points.length));
        },
      ),
    );
  });

  it('refuses out-of-order points and points after finish', () => {
    const sampler = new TimeseriesSampler({ startTime: start, endTime: start + DAY_MS, initialCapital: '1' });
    assert.throws(() => sampler.offer(point(start, '1')), RangeError);
    sampler.offer(point(start + MINUTE, '1'));
    assert.throws(() => sampler.offer(point(start + MINUTE, '1')), RangeError);
    sampler.finish();
    assert.throws(() => sampler.offer(point(start + 2 * MINUTE, '1')));
  });
});

describe('sampled file reproduces the metrics of the full series (decision 9)', () => {
  const step = fc.record({
    minutes: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 24 * 60 })),
    move: fc.constantFrom(-3, -2, -1, 0, 0, 0, 0, 1, 2, 3),
    balanceMove: fc.integer({ min: -10, max: 10 }).map((n) => (n === 10 ? 1 : n === -10 ? -1 : 0)),
    changed: fc.boolean(),
  });

  it('drawdown, its duration, daily closes and every metric are equal', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 0, maxLength: 400, size: 'max' }),
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        (steps, maxGridPoints, allCrypto) => {
          const initialCapital = '100';
          const full: SamplePoint[] = [];
          let t = start;
          let nav = 400; // quarters: NAV = nav / 4 starts at initialCapital (decision 8)
          let balance = 100;
          for (const s of steps) {
            t += s.minutes * MINUTE;
            nav += s.move;
            balance += s.balanceMove;
            full.push({
              time: t,
              nav: String(nav / 4),
              balance: String(balance),
              marginUsed: '0',
              changed: s.changed && s.move === 2,
            });
          }
          const endTime = Math.max(t, start + MINUTE);
          const options = { startTime: start, endTime, initialCapital, maxGridPoints };
          const sampled = sampleTimeseries(options, full);

          const fullTimes = [start, ...full.map((p) => p.time)];
          const fullNav = [initialCapital, ...full.map((p) => p.nav as string)];
          // Sampled points are a subsequence of the full series, first and last included.
          const index = new Map(fullTimes.map((time, i) => [time, i]));
          assert.equal(sampled.timestamps[0], start);
          assert.equal(sampled.timestamps.at(-1), fullTimes.at(-1));
          for (let i = 0; i < sampled.timestamps.length; i++) {
            const j = index.get(sampled.timestamps[i] as number);
            assert.notEqual(j, undefined);
            assert.equal(sampled.nav[i], fullNav[j as number]);
          }
          for (const p of full) if (p.changed) assert.ok(sampled.timestamps.includes(p.time));

          const a = drawdownStats(fullTimes, fullNav);
          const b = drawdownStats(sampled.timestamps, sampled.nav);
          assert.equal(b.maxDrawdown.toString(), a.maxDrawdown.toString());
          assert.equal(b.maxDurationMs, a.maxDurationMs);

          const metricsInput = { trades: [], initialCapital, startTime: start, endTime, allCrypto };
          assert.deepEqual(
            computeMetrics({ ...metricsInput, timestamps: sampled.timestamps, nav: sampled.nav }),
            computeMetrics({ ...metricsInput, timestamps: fullTimes, nav: fullNav }),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});
