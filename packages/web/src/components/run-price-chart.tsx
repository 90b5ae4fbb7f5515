/**
 * One instrument's price over the run window as candles (the smallest timeframe with at most ~5,000
 * bars, from the internal candles endpoint), with the run's entries and exits on it as markers: up
 * arrows for buys, down arrows for sells, coloured by the lot's direction, labelled with the units.
 */
import { CandlestickSeries, createChart, createSeriesMarkers, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef } from 'react';
import { type Candles, internal, type TradeLot } from '../api/internal.ts';
import { afterPaint, chartOptions } from './run-chart-theme.ts';
import { candlePoints, LONG_COLOUR, SHORT_COLOUR, tradeMarkers } from './run-series.ts';

const MAX_POINTS = 5000;

/**
 * The candles a price chart shows: the instrument over the run window [from, to) (epoch ms). The page
 * asks for them while it loads the results, so both travel at once.
 */
export const loadRunCandles = (symbol: string, from: number, to: number) =>
  internal.candles({ symbol, from, to, maxPoints: MAX_POINTS });
/** Marker labels (side and units) show when at most this many bars are in view. */
const LABELLED_BARS = 150;

export function RunPriceChart({
  symbol,
  candles,
  error,
  trades,
  onDrawn,
}: {
  symbol: string;
  candles: Candles | null;
  /** Why the candles could not be loaded. */
  error: string | null;
  trades: readonly TradeLot[];
  onDrawn: () => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;

  useEffect(() => {
    // A chart that cannot load still counts as settled, so the page does not wait for ever.
    if (error) drawn.current();
  }, [error]);

  const points = useMemo(() => (candles ? candlePoints(candles.candles) : []), [candles]);
  const markers = useMemo(
    () =>
      tradeMarkers(
        trades,
        symbol,
        points.map((p) => p.time),
      ),
    [trades, symbol, points],
  );

  useEffect(() => {
    const element = container.current;
    if (!element || !candles) return;
    const chart = createChart(element, chartOptions);
    const series = chart.addSeries(CandlestickSeries, {
      upColor: '#1a7f37',
      borderUpColor: '#1a7f37',
      wickUpColor: '#1a7f37',
      downColor: '#b42318',
      borderDownColor: '#b42318',
      wickDownColor: '#b42318',
      priceLineVisible: false,
    });
    series.setData(points.map((p) => ({ ...p, time: p.time as UTCTimestamp })));
    // Labels only once zoomed in: thousands of labelled arrows over a whole run are unreadable.
    const labelled = markers.map((m) => ({ ...m, time: m.time as UTCTimestamp }));
    const bare = labelled.map((m) => ({ ...m, text: '' }));
    const plugin = createSeriesMarkers(series, bare);
    let showingText = false;
    chart.timeScale().subscribeVisibleLogicalRangeChange((range) => {
      const text = range !== null && range.to - range.from <= LABELLED_BARS;
      if (text !== showingText) {
        showingText = text;
        plugin.setMarkers(text ? labelled : bare);
      }
    });
    chart.timeScale().fitContent();
    const cancel = afterPaint(() => drawn.current());
    return () => {
      cancel();
      chart.remove();
    };
  }, [candles, points, markers]);

  const description = `Price of ${symbol} with ${markers.length} trade markers`;
  return (
    <figure className="runs-figure" aria-label={description}>
      <figcaption className="runs-legend">
        <strong>{symbol}</strong>
        {candles && <span>{candles.timeframe} candles, UTC</span>}
        <span>
          <span className="runs-swatch" style={{ background: LONG_COLOUR }} />
          long lots
        </span>
        <span>
          <span className="runs-swatch" style={{ background: SHORT_COLOUR }} />
          short lots
        </span>
        <span>▲ buy, ▼ sell</span>
      </figcaption>
      {error && (
        <p className="error" role="alert">
          Could not load the candles of {symbol}: {error}
        </p>
      )}
      <div
        ref={container}
        className="runs-chart runs-chart-small"
        data-testid="price-chart"
        data-symbol={symbol}
        data-markers={markers.length}
        data-timeframe={candles?.timeframe ?? ''}
      />
    </figure>
  );
}
