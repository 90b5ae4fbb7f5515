/**
 * The run's equity chart: NAV (equity) and balance lines over the run, and the drawdown from the
 * running NAV peak in percent in a second pane below, from the decoded timeseries. The series are
 * parsed once (run-series.ts) and handed to the chart as plain numbers, so 131,040 points draw fast.
 */
import { AreaSeries, createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { afterPaint, chartOptions } from './run-chart-theme.ts';
import type { EquitySeries } from './run-series.ts';

const NAV_COLOUR = '#0b5cad';
const BALANCE_COLOUR = '#8250df';
const DRAWDOWN_COLOUR = '#b42318';

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
    const { times } = series;
    const n = times.length;
    const navData = new Array(n);
    const balanceData = new Array(n);
    const drawdownData = new Array(n);
    for (let i = 0; i < n; i++) {
      const time = times[i] as UTCTimestamp;
      navData[i] = { time, value: series.nav[i] };
      balanceData[i] = { time, value: series.balance[i] };
      drawdownData[i] = { time, value: series.drawdownPct[i] };
    }
    nav.setData(navData);
    balance.setData(balanceData);
    drawdown.setData(drawdownData);
    chart.panes()[0]?.setStretchFactor(3);
    chart.panes()[1]?.setStretchFactor(1);
    chart.timeScale().fitContent();
    const cancel = afterPaint(() => drawn.current());
    return () => {
      cancel();
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
