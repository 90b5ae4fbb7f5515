/**
 * A COMPLETE run's metrics as cards: every metric of the spec's table, each with its unit and the
 * rounding its kind calls for (format.ts). A metric the engine omitted (too little data) shows its
 * `...Reason` in words instead of a number.
 */
import { formatDecimal, formatDuration, formatMoney, formatPercent } from '../format.ts';

type Kind = 'percent' | 'money' | 'ratio' | 'count' | 'days' | 'seconds';

/** The spec's metrics table, in its order. */
const METRICS: readonly [key: string, label: string, kind: Kind][] = [
  ['totalReturn', 'Total return', 'percent'],
  ['annualizedReturnPct', 'Annualized return', 'percent'],
  ['netPnl', 'Net P&L', 'money'],
  ['grossPnl', 'Gross P&L', 'money'],
  ['totalCommission', 'Total commission', 'money'],
  ['maxDrawdownPct', 'Max drawdown', 'percent'],
  ['maxDrawdownDurationDays', 'Longest drawdown', 'days'],
  ['sharpeRatio', 'Sharpe ratio', 'ratio'],
  ['sortinoRatio', 'Sortino ratio', 'ratio'],
  ['totalTrades', 'Closed trades', 'count'],
  ['winningTrades', 'Winning trades', 'count'],
  ['losingTrades', 'Losing trades', 'count'],
  ['winRatePct', 'Win rate', 'percent'],
  ['profitFactor', 'Profit factor', 'ratio'],
  ['avgWin', 'Average win', 'money'],
  ['avgLoss', 'Average loss', 'money'],
  ['largestWin', 'Largest win', 'money'],
  ['largestLoss', 'Largest loss', 'money'],
  ['avgTradeDurationSeconds', 'Average trade duration', 'seconds'],
];

const REASONS: Record<string, string> = {
  insufficient_data_points: 'Not enough data points',
  zero_standard_deviation: 'Returns did not vary',
  no_negative_returns: 'No losing days',
  no_winning_trades: 'No winning trades',
  no_losing_trades: 'No losing trades',
  no_closed_trades: 'No closed trades',
};

export const reasonInWords = (reason: string) => REASONS[reason] ?? reason.replaceAll('_', ' ');

function formatMetric(value: unknown, kind: Kind, currency: string): string {
  const v = value as string | number;
  switch (kind) {
    case 'percent':
      return formatPercent(v, 2);
    case 'money':
      return formatMoney(v, currency);
    case 'ratio':
      return formatDecimal(v, 2);
    case 'count':
      return formatDecimal(v, 0);
    case 'days':
      return formatDuration(Number(v) * 86_400);
    case 'seconds':
      return formatDuration(v);
  }
}

export function RunMetricCards({
  metrics,
  currency,
}: {
  metrics: Record<string, unknown>;
  currency: string;
}) {
  return (
    <dl className="runs-metrics" data-testid="metric-cards">
      {METRICS.map(([key, label, kind]) => {
        const value = metrics[key];
        const reason = metrics[`${key}Reason`];
        const present = value !== undefined && value !== null;
        return (
          <div className="runs-metric" key={key} data-metric={key}>
            <dt>{label}</dt>
            {present ? (
              <dd title={String(value)}>{formatMetric(value, kind, currency)}</dd>
            ) : (
              <dd className="runs-metric-reason">
                {typeof reason === 'string' ? reasonInWords(reason) : '—'}
              </dd>
            )}
          </div>
        );
      })}
    </dl>
  );
}
