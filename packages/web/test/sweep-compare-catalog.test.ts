import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  gapText,
  type InstrumentCoverage,
  segments,
  spanDays,
  timelineAxis,
} from '../src/components/catalog-timeline-model.ts';
import { bestIndexes, chartLine, runName, seriesStyle } from '../src/components/compare-model.ts';
import { compareMetricValues, digitsFor, formatMetric, metricValue } from '../src/components/metrics.ts';
import {
  buildHeatGrid,
  colourScale,
  contrast,
  paramValues,
  type SweepRun,
  sortParamValues,
  textOn,
} from '../src/components/sweep-heatmap-model.ts';

const run = (
  id: string,
  params: Record<string, string>,
  state = 'COMPLETE',
  metrics: Record<string, unknown> | null = null,
): SweepRun => ({ scenarioId: id, state, params, metrics });

describe('sweep heatmap model', () => {
  test('parameter values sort numerically when all are numbers, else as text', () => {
    assert.deepEqual(sortParamValues(['10', '5', '40', '5', '2.5']), ['2.5', '5', '10', '40']);
    assert.deepEqual(sortParamValues(['-1', '0', '-10']), ['-10', '-1', '0']);
    assert.deepEqual(sortParamValues(['fast', 'b10', 'b9']), ['b9', 'b10', 'fast']);
    assert.deepEqual(sortParamValues(['5', 'x']), ['5', 'x']);
  });

  const runs = [
    run('a', { FAST: '10', SLOW: '20' }, 'COMPLETE', { totalReturn: 1.5 }),
    run('b', { FAST: '5', SLOW: '20' }, 'COMPLETE', { totalReturn: -3 }),
    run('c', { FAST: '5', SLOW: '40' }, 'RUNNING'),
    run('d', { FAST: '10', SLOW: '40' }, 'COMPLETE', { sharpeRatioReason: 'insufficient_data_points' }),
  ];

  test('two keys: rows are Y values, columns X values, each cell its run and value', () => {
    const grid = buildHeatGrid(runs, { metric: 'totalReturn', xKey: 'FAST', yKey: 'SLOW', fixed: {} });
    assert.deepEqual(grid.xs, ['5', '10']);
    assert.deepEqual(grid.ys, ['20', '40']);
    assert.deepEqual(
      grid.rows.map((row) => row.map((cell) => [cell.x, cell.y, cell.run?.scenarioId, cell.value])),
      [
        [
          ['5', '20', 'b', -3],
          ['10', '20', 'a', 1.5],
        ],
        [
          ['5', '40', 'c', null],
          ['10', '40', 'd', null],
        ],
      ],
    );
    assert.equal(grid.min, -3);
    assert.equal(grid.max, 1.5);
    assert.equal(grid.outside, 0);
  });

  test('one key: a single row; a missing combination is an empty cell', () => {
    const grid = buildHeatGrid(runs.slice(0, 2), {
      metric: 'totalReturn',
      xKey: 'FAST',
      yKey: null,
      fixed: {},
    });
    assert.deepEqual(grid.ys, [null]);
    assert.equal(grid.rows[0]?.length, 2);
    const sparse = buildHeatGrid([runs[0] as SweepRun, runs[2] as SweepRun], {
      metric: 'totalReturn',
      xKey: 'FAST',
      yKey: 'SLOW',
      fixed: {},
    });
    assert.equal(sparse.rows[0]?.[0]?.run, null);
  });

  test('more keys: the others are held at one value, and the runs left out are counted', () => {
    const three = [
      run('p', { A: '1', B: '1', C: 'x' }, 'COMPLETE', { netPnl: '12.5' }),
      run('q', { A: '1', B: '1', C: 'y' }, 'COMPLETE', { netPnl: '-0.1' }),
    ];
    assert.deepEqual(paramValues(three, ['C']), { C: ['x', 'y'] });
    const grid = buildHeatGrid(three, { metric: 'netPnl', xKey: 'A', yKey: 'B', fixed: { C: 'y' } });
    assert.equal(grid.rows[0]?.[0]?.run?.scenarioId, 'q');
    assert.equal(grid.rows[0]?.[0]?.value, '-0.1');
    assert.equal(grid.outside, 1);
  });

  test('a diverging scale is symmetric around zero; a sequential one spans the values', () => {
    const diverging = colourScale(true, -3, 1.5);
    assert.equal(diverging.kind, 'diverging');
    assert.deepEqual([diverging.low, diverging.high], [-3, 3]);
    assert.deepEqual(diverging.colour(0), [246, 248, 250]);
    const red = diverging.colour(-3);
    const blue = diverging.colour(3);
    assert.ok(red[0] > red[2] && blue[2] > blue[0]);
    const sequential = colourScale(false, 2, 10);
    assert.deepEqual([sequential.low, sequential.high], [2, 10]);
    assert.deepEqual(sequential.colour(2), [240, 246, 252]);
    assert.deepEqual(colourScale(false, 4, 4).colour(4), sequential.colour(6));
  });

  test('cell text keeps at least 4.5:1 contrast on every fill of both scales', () => {
    for (const scale of [colourScale(true, -1, 1), colourScale(false, 0, 1)]) {
      for (let t = 0; t <= 1; t += 0.01) {
        const fill = scale.colour(scale.low + (scale.high - scale.low) * t);
        const text = textOn(fill) === '#ffffff' ? ([255, 255, 255] as const) : ([0, 0, 0] as const);
        assert.ok(contrast(fill, text) >= 4.5, `fill ${fill} with ${textOn(fill)}`);
      }
    }
  });
});

describe('metric values', () => {
  test('decimal strings compare exactly, numbers as numbers', () => {
    assert.equal(compareMetricValues('0.30000000000000001', '0.3'), 1);
    assert.equal(compareMetricValues('-0.1', '-0.10'), 0);
    assert.equal(compareMetricValues('-2', '-10'), 1);
    assert.equal(compareMetricValues('100', '99.999'), 1);
    assert.equal(compareMetricValues('-0', '0.0'), 0);
    assert.equal(compareMetricValues(2, '10'), -1);
  });

  test('only numbers and decimal strings count as values', () => {
    assert.equal(metricValue({ a: 'insufficient_data_points' }, 'a'), null);
    assert.equal(metricValue({ a: Number.NaN }, 'a'), null);
    assert.equal(metricValue({ a: '-80.03' }, 'a'), '-80.03');
    assert.equal(metricValue(null, 'a'), null);
  });

  test('each kind gets its unit', () => {
    assert.equal(formatMetric(-0.0800349, 'percent'), '-0.08 %');
    assert.equal(formatMetric('-80.0349425502975', 'money'), '-80.03');
    assert.equal(formatMetric(284, 'count'), '284');
    assert.equal(formatMetric(900.2, 'seconds'), '15 min');
    assert.equal(formatMetric(undefined, 'ratio'), '—');
    assert.equal(formatMetric(-0.0160349, 'percent', undefined, digitsFor(0.016)), '-0.016 %');
    assert.deepEqual(
      [digitsFor(12), digitsFor(1), digitsFor(0.5), digitsFor(0.05), digitsFor(1e-9), digitsFor(0)],
      [2, 2, 2, 3, 4, 2],
    );
  });
});

describe('compare model', () => {
  test('the best value of a row follows the metric’s better direction; ties all count', () => {
    const metrics = [
      { netPnl: '10.5', maxDrawdownPct: 3 },
      { netPnl: '10.50', maxDrawdownPct: 1 },
      { netPnl: '-2' },
    ];
    assert.deepEqual(bestIndexes(metrics, { key: 'netPnl', better: 'higher' }), [0, 1]);
    assert.deepEqual(bestIndexes(metrics, { key: 'maxDrawdownPct', better: 'lower' }), [1]);
    assert.deepEqual(bestIndexes(metrics, { key: 'totalTrades', better: null }), []);
    assert.deepEqual(bestIndexes([{ a: 1 }, { a: 1 }], { key: 'a', better: 'higher' }), []);
    assert.deepEqual(bestIndexes([{ a: 1 }, {}], { key: 'a', better: 'higher' }), []);
  });

  test('a curve as NAV or percent return, one point per second', () => {
    const ts = [1_704_067_200_000, 1_704_067_200_500, 1_704_067_260_000];
    const nav = ['10000', '10010', '9900'];
    assert.deepEqual(chartLine(ts, nav, 10_000, false), [
      { time: 1_704_067_200, value: 10_010 },
      { time: 1_704_067_260, value: 9_900 },
    ]);
    const asReturn = chartLine(ts, nav, 10_000, true);
    assert.ok(Math.abs((asReturn[1]?.value ?? 0) + 1) < 1e-9);
  });

  test('runs are named by strategy, version and label, and styled apart up to twenty', () => {
    assert.equal(runName('12345678-aaaa', undefined, null), 'Run 12345678');
    assert.equal(runName('x', undefined, 'FAST=5'), 'FAST=5');
    const styles = Array.from({ length: 20 }, (_, i) => seriesStyle(i));
    assert.equal(new Set(styles.map((s) => `${s.colour}${s.dashed}`)).size, 20);
  });
});

describe('catalog timeline model', () => {
  const coverage = (
    symbol: string,
    ranges: [string, string][],
    gaps: [string, string][],
  ): InstrumentCoverage => ({
    symbol,
    ranges: ranges.map(([from, to]) => ({ from, to })),
    gaps: gaps.map(([from, to]) => ({ from, to })),
    firstDay: ranges[0]?.[0] ?? null,
    lastDay: ranges[ranges.length - 1]?.[1] ?? null,
  });

  test('a gap in words counts both ends', () => {
    assert.equal(
      gapText({ from: '2024-03-02', to: '2025-04-30' }),
      'gap 2024-03-02 to 2025-04-30 (425 days)',
    );
    assert.equal(gapText({ from: '2024-02-29', to: '2024-02-29' }), 'gap 2024-02-29 (1 day)');
    assert.equal(spanDays({ from: '2023-12-31', to: '2024-01-01' }), 2);
  });

  test('the axis spans whole years of every instrument, ticks at each 1 January', () => {
    const btc = coverage(
      'C:BTCUSD',
      [
        ['2023-06-01', '2024-03-01'],
        ['2025-05-01', '2025-06-30'],
      ],
      [['2024-03-02', '2025-04-30']],
    );
    const axis = timelineAxis([btc, coverage('C:NONE', [], [])]);
    assert.ok(axis);
    assert.deepEqual(
      axis.ticks.map((t) => t.year),
      [2023, 2024, 2025, 2026],
    );
    assert.deepEqual(
      axis.ticks.map((t) => t.labelled),
      [true, true, true, false],
    );
    assert.equal(axis.ticks[0]?.left, 0);
    assert.equal(axis.ticks[3]?.left, 100);
    const parts = segments(axis, btc);
    assert.deepEqual(
      parts.map((p) => p.kind),
      ['data', 'gap', 'data'],
    );
    const [first, gap, last] = parts as [(typeof parts)[0], (typeof parts)[0], (typeof parts)[0]];
    assert.ok(Math.abs(first.left + first.width - gap.left) < 1e-9, 'the gap starts where the data ends');
    assert.ok(Math.abs(gap.left + gap.width - last.left) < 1e-9);
    assert.equal(gap.text, 'gap 2024-03-02 to 2025-04-30 (425 days)');
    assert.equal(timelineAxis([coverage('C:NONE', [], [])]), null);
    const long = timelineAxis([coverage('S:SPY', [['2011-03-01', '2025-03-31']], [])]);
    assert.deepEqual(
      long?.ticks.filter((t) => t.labelled).map((t) => t.year),
      [2011, 2013, 2015, 2017, 2019, 2021, 2023, 2025],
    );
  });
});
