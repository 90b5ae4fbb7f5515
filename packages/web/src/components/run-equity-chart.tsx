/**
 * The run's equity chart: NAV (equity) and balance lines over the run, and the drawdown from the
 * running NAV peak in percent in a second pane below, from the decoded timeseries. The series are
 * parsed once (run-series.ts) and handed to the chart as plain numbers, so 131,040 points draw fast.
 */
import {
  AreaSeries,
  createChart,
  type IRange,
  LineSeries,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { afterPaint, chartOptions } from './run-chart-theme.ts';
import { type EquitySeries, envelopeIndices, lastAtOrBefore } from './run-series.ts';

const NAV_COLOUR = '#0b5cad';
const BALANCE_COLOUR = '#8250df';
const DRAWDOWN_COLOUR = '#b42318';
/** Buckets across the visible range: a few per pixel column of a wide screen. */
const BUCKETS = 3000;

export function RunEquityChart({
  series,
  currency,
  onDrawn,
}: {
  series: EquitySeries;
  currency: string;
  onDrawn: () => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const chart = createChart(element, chartOptions);
    const money = { type: 'price' as const, precision: 2, minMove: 0.01 };
    const nav = chart.addSeries(LineSeries, {
      color: NAV_COLOUR,
      lineWidth: 2,
      title: 'NAV',
      priceFormat: money,
      priceLineVisible: false,
    });
    const balance = chart.addSeries(LineSeries, {
      color: BALANCE_COLOUR,
      lineWidth: 1,
      title: 'Balance',
      priceFormat: money,
      priceLineVisible: false,
      lastValueVisible: false,
    });
    const drawdown = chart.addSeries(
      AreaSeries,
      {
        lineColor: DRAWDOWN_COLOUR,
        topColor: 'rgba(180, 35, 24, 0.05)',
        bottomColor: 'rgba(180, 35, 24, 0.35)',
        lineWidth: 1,
        title: 'Drawdown %',
        invertFilledArea: true,
        priceFormat: { type: 'custom', formatter: (v: number) => `${v.toFixed(2)} %`, minMove: 0.01 },
        priceLineVisible: false,
      },
      1,
    );
    // A long run (131,040 1m points for three months) is drawn as its envelope at screen resolution,
    // refined for the visible range when the user zooms in: every point is in the data, but the
    // chart's per-point work (setData, autoscale, painting) stays at a few thousand points.
    const { times } = series;
    const draw = (from: number, to: number) => {
      const { indices, bucket } = envelopeIndices(series, from, to, BUCKETS);
      const navData = new Array(indices.length);
      const balanceData = new Array(indices.length);
      const drawdownData = new Array(indices.length);
      for (let k = 0; k < indices.length; k++) {
        const i = indices[k] as number;
        const time = times[i] as UTCTimestamp;
        navData[k] = { time, value: series.nav[i] };
        balanceData[k] = { time, value: series.balance[i] };
        drawdownData[k] = { time, value: series.drawdownPct[i] };
      }
      nav.setData(navData);
      balance.setData(balanceData);
      drawdown.setData(drawdownData);
      return bucket;
    };
    let bucket = draw(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onRange = (range: IRange<Time> | null) => {
      if (!range || bucket === 1) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        const from = range.from as number;
        const to = range.to as number;
        const visible = lastAtOrBefore(times, to) - lastAtOrBefore(times, from) + 1;
        const wanted = Math.max(1, Math.ceil(visible / BUCKETS));
        // Redraw only when the detail needed changed by half or more: each redraw is a setData.
        if (wanted * 2 > bucket && wanted < bucket * 2) return;
        bucket = draw(from, to);
        chart.timeScale().setVisibleRange(range);
      }, 150);
    };
    chart.timeScale().subscribeVisibleTimeRangeChange(onRange);
    chart.panes()[0]?.setStretchFactor(3);
    chart.panes()[1]?.setStretchFactor(1);
    chart.timeScale().fitContent();
    const cancel = afterPaint(() => drawn.current());
    return () => {
      cancel();
      if (timer) clearTimeout(timer);
      chart.timeScale().unsubscribeVisibleTimeRangeChange(onRange);
      chart.remove();
    };
  }, [series]);

  const description = `Equity chart: NAV and balance in ${currency} and drawdown in percent, ${series.times.length} points`;
  return (
    <figure className="runs-figure" aria-label={description}>
      <ul className="runs-legend" aria-hidden="true">
        <li>
          <span className="runs-swatch" style={{ background: NAV_COLOUR }} />
          NAV ({currency})
        </li>
        <li>
          <span className="runs-swatch" style={{ background: BALANCE_COLOUR }} />
          Balance ({currency})
        </li>
        <li>
          <span className="runs-swatch" style={{ background: DRAWDOWN_COLOUR }} />
          Drawdown from peak (%)
        </li>
      </ul>
      <div
        ref={container}
        className="runs-chart"
        data-testid="equity-chart"
        data-points={series.times.length}
      />
    </figure>
  );
}
