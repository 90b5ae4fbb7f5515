/**
 * What the run page's charts share: the app's colours and type, a UTC time axis (lightweight-charts
 * shows UTCTimestamp seconds as UTC), and a "drawn" signal one frame after the first paint.
 */
import type { ChartOptions, DeepPartial } from 'lightweight-charts';

export const chartOptions: DeepPartial<ChartOptions> = {
  autoSize: true,
  layout: {
    background: { color: '#ffffff' },
    textColor: '#1b1f24',
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    fontSize: 12,
  },
  grid: { vertLines: { color: '#eef1f4' }, horzLines: { color: '#eef1f4' } },
  rightPriceScale: { borderColor: '#d0d7de' },
  // A small minimum bar spacing lets `fitContent` show a whole run, even 131,040 points, at once.
  timeScale: { borderColor: '#d0d7de', timeVisible: true, secondsVisible: false, minBarSpacing: 0.001 },
  crosshair: { mode: 0 },
};

/**
 * Calls `drawn` once the chart has painted: it paints on the next animation frame after `setData`,
 * so the frame after that has it on screen. Returns a cancel for the effect's cleanup.
 */
export function afterPaint(drawn: () => void): () => void {
  let frame = requestAnimationFrame(() => {
    frame = requestAnimationFrame(drawn);
  });
  return () => cancelAnimationFrame(frame);
}
