/** The self-contained HTML backtest report: render it to a string or write it to a file. */
export { type MetricCard, metricCards } from './metric-cards.ts';
export { renderReport } from './render-report.ts';
export type { ReportBar, ReportCandles, ReportInput, ReportParams } from './report-input.ts';
export { writeReport } from './write-report.ts';
