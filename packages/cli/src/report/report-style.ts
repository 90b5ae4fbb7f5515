/** The report's stylesheet, inlined in the page (the report loads nothing). */
export const REPORT_STYLE = `
:root { --fg: #1f2933; --muted: #616e7c; --line: #e4e7eb; --bg: #f5f7fa; --card: #fff;
  --pos: #0b7a4b; --neg: #c62828; --accent: #2962ff; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 24px; margin: 0 0 6px; overflow-wrap: anywhere; }
h2 { font-size: 17px; margin: 32px 0 10px; }
h3 { font-size: 14px; margin: 16px 0 6px; color: var(--muted); }
.facts { display: flex; flex-wrap: wrap; gap: 4px 20px; color: var(--muted); margin: 0; }
.facts div { display: flex; gap: 6px; }
.facts dt { font-weight: 600; } .facts dd { margin: 0; color: var(--fg); overflow-wrap: anywhere; }
.params { display: flex; flex-wrap: wrap; gap: 6px; margin: 10px 0 0; padding: 0; list-style: none; }
.params li { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1px 10px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
.card-label { color: var(--muted); font-size: 12px; }
.card-value { font-size: 19px; font-weight: 600; overflow-wrap: anywhere; font-variant-numeric: tabular-nums; }
.card-value .unit { font-size: 12px; font-weight: 400; color: var(--muted); }
.card-note { font-size: 11px; color: var(--muted); overflow-wrap: anywhere;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.card.positive .value { color: var(--pos); } .card.negative .value { color: var(--neg); }
.card.missing .value { color: var(--muted); }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px; }
.chart { position: relative; width: 100%; height: 320px; }
.chart.small { height: 180px; } .chart.price { height: 380px; }
.legend { color: var(--muted); font-size: 12px; margin: 4px 4px 0; }
.legend .buy { color: #089981; } .legend .sell { color: #f23645; }
.chart-error { color: var(--neg); padding: 12px; }
.table-tools { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; margin-bottom: 8px; }
.table-tools input { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; min-width: 260px; }
.pager { display: flex; align-items: center; gap: 6px; margin-left: auto; }
.pager button { font: inherit; padding: 3px 9px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); cursor: pointer; }
.pager button:disabled { opacity: 0.4; cursor: default; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); font-variant-numeric: tabular-nums; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { position: sticky; top: 0; background: #eef1f5; cursor: pointer; user-select: none; font-size: 12px; }
th[aria-sort="ascending"]::after { content: " \\25B2"; } th[aria-sort="descending"]::after { content: " \\25BC"; }
td.num { text-align: right; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
td.pos { color: var(--pos); } td.neg { color: var(--neg); }
tbody tr:hover { background: #f8fafc; }
.empty { color: var(--muted); padding: 12px; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;
