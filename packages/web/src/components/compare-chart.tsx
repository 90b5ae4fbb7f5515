/**
 * The compare page's chart: every run's equity curve on one time axis (the comparison's), one line
 * per run in its own colour (dashed from the eleventh), as NAV or as the return on its initial capital
 * in percent, with a legend naming each run. The legend is real text; the canvas is an image whose
 * figure's label says what it draws.
 */
import { createChart, LineSeries, LineStyle, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef } from 'react';
import { chartLine, seriesStyle } from './compare-model.ts';
import { chartOptions } from './run-chart-theme.ts';

export interface CompareCurve {
  scenarioId: string;
  initialCapital: number;
  nav: readonly string[];
}

export function CompareChart({
  timestamps,
  curves,
  names,
  asReturn,
}: {
  timestamps: readonly number[];
  /** Drawn once per comparison and mode; the names (which may arrive later) only touch the legend. */
  curves: readonly CompareCurve[];
  names: readonly string[];
  asReturn: boolean;
}) {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const chart = createChart(element, chartOptions);
    const format = asReturn
      ? { type: 'custom' as const, formatter: (v: number) => `${v.toFixed(2)} %`, minMove: 0.01 }
      : { type: 'price' as const, precision: 2, minMove: 0.01 };
    curves.forEach((curve, index) => {
      const style = seriesStyle(index);
      const series = chart.addSeries(LineSeries, {
        color: style.colour,
        lineWidth: 2,
        lineStyle: style.dashed ? LineStyle.Dashed : LineStyle.Solid,
        title: '',
        priceFormat: format,
        priceLineVisible: false,
        lastValueVisible: curves.length <= 5,
      });
      series.setData(
        chartLine(timestamps, curve.nav, curve.initialCapital, asReturn).map((p) => ({
          time: p.time as UTCTimestamp,
          value: p.value,
        })),
      );
    });
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [timestamps, curves, asReturn]);

  return (
    // The figure carries the description: the container cannot be role="img", since the chart puts
    // its attribution link inside it.
    <figure
      className="compare-figure"
      aria-label={`Equity of ${curves.length} runs ${asReturn ? 'as return on initial capital in percent' : 'as NAV'} over time; the metrics table has their figures`}
    >
      <ul className="compare-legend">
        {curves.map((curve, index) => {
          const style = seriesStyle(index);
          return (
            <li key={curve.scenarioId}>
              <span
                className={`compare-swatch${style.dashed ? ' compare-swatch-dashed' : ''}`}
                style={{ borderColor: style.colour }}
                aria-hidden="true"
              />
              {names[index] ?? `Run ${curve.scenarioId.slice(0, 8)}`}{' '}
              <span className="muted">({curve.scenarioId.slice(0, 8)})</span>
            </li>
          );
        })}
      </ul>
      <div
        ref={container}
        className="compare-chart"
        data-testid="compare-chart"
        data-series={curves.length}
      />
    </figure>
  );
}
