/**
 * The backtest report as one self-contained HTML document: header, metric cards, equity, drawdown and
 * price charts, and the trades table. Everything is inline (stylesheet, charting library, the page's
 * script and its data), so the file opens offline and requests nothing.
 */
import { chartLibrarySource } from './chart-library.ts';
import { escapeHtml, inlineScript, scriptJson } from './html-text.ts';
import { metricCardsHtml, toCents } from './metric-cards.ts';
import { reportData, TRADE_COLUMNS } from './report-data.ts';
import type { ReportInput, ReportParams } from './report-input.ts';
import { REPORT_SCRIPT } from './report-script.ts';
import { REPORT_STYLE } from './report-style.ts';

const DAY_MS = 86_400_000;

const utc = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function span(ms: number): string {
  const days = ms / DAY_MS;
  if (days >= 1) return `${Number(days.toFixed(2))} days`;
  return `${Number((ms / 3_600_000).toFixed(2))} hours`;
}

/** A header fact; `exact` (a long amount shown to the cent) goes in its tooltip. */
function fact(label: string, value: string, exact?: string): string {
  const title = exact === undefined ? '' : ` title="${escapeHtml(exact)}"`;
  return `<div><dt>${escapeHtml(label)}</dt><dd${title}>${escapeHtml(value)}</dd></div>`;
}

const money = (label: string, amount: string, currency: string): string =>
  fact(
    label,
    `${toCents(amount)} ${currency}`,
    toCents(amount) === amount ? undefined : `${amount} ${currency}`,
  );

function paramsHtml(params: ReportParams | undefined): string {
  const entries = Object.entries(params ?? {});
  if (entries.length === 0) return '';
  const items = entries.map(([k, v]) => `<li>${escapeHtml(k)} = ${escapeHtml(String(v))}</li>`).join('');
  return `<ul class="params" aria-label="Parameters">${items}</ul>`;
}

function headerHtml(input: ReportInput): string {
  const m = input.files.metadata;
  const openTrades = m.openTrades > 0 ? `, ${m.openTrades} open at the end` : '';
  return `<header>
<h1>${escapeHtml(input.title)}</h1>
<dl class="facts">
${fact('Window', `${utc(m.startTime)} to ${utc(m.endTime)} (${span(m.endTime - m.startTime)})`)}
${money('Initial capital', m.initialCapital, m.currency)}
${money('Final NAV', m.finalNav, m.currency)}
${fact('Trades', `${m.totalTrades} closed${openTrades}`)}
${fact('Engine', m.engineVersion)}
</dl>
${paramsHtml(input.params)}
</header>`;
}

function tradesHtml(input: ReportInput): string {
  const lots = input.files.trades.trades.length;
  const heads = TRADE_COLUMNS.map(
    (c, i) => `<th scope="col" tabindex="0" aria-sort="none" data-col="${i}">${escapeHtml(c.label)}</th>`,
  ).join('');
  return `<h2>Trades <span class="muted">(${lots})</span></h2>
<div class="table-tools">
<input id="trade-filter" type="search" placeholder="Filter by symbol or side, e.g. BTC short" aria-label="Filter trades by symbol or side">
<span id="trade-count">${lots} trades</span>
<div class="pager"><button id="page-first" type="button" aria-label="First page">&laquo;</button><button id="page-prev" type="button" aria-label="Previous page">&lsaquo;</button><span id="trade-page"></span><button id="page-next" type="button" aria-label="Next page">&rsaquo;</button><button id="page-last" type="button" aria-label="Last page">&raquo;</button></div>
</div>
<div class="table-wrap"><table id="trades-table" data-trade-count="${lots}"><thead><tr>${heads}</tr></thead><tbody></tbody></table></div>`;
}

export function renderReport(input: ReportInput): string {
  const data = reportData(input);
  const title = escapeHtml(input.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="Hindsight ${escapeHtml(input.files.metadata.engineVersion)}">
<title>${title}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<main>
${headerHtml(input)}
<h2>Metrics</h2>
<section class="cards">
${metricCardsHtml(input.files.metrics)}
</section>
<h2>Equity</h2>
<div class="panel"><div id="equity-chart" class="chart"></div>
<div class="legend">NAV (solid) and balance (dashed), USD</div></div>
<h2>Drawdown</h2>
<div class="panel"><div id="drawdown-chart" class="chart small"></div></div>
<h2>Prices and fills</h2>
<section id="price-charts"></section>
${tradesHtml(input)}
<footer>Made by Hindsight from the run's result files. Charts: TradingView Lightweight Charts&trade;. Times are UTC.</footer>
</main>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${inlineScript(chartLibrarySource())}</script>
<script>${inlineScript(REPORT_SCRIPT)}</script>
</body>
</html>
`;
}
