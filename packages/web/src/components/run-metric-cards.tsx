/**
 * A COMPLETE run's metrics as cards: every metric of the spec's table, each with its unit and the
 * rounding its kind calls for (metrics.ts). A metric the engine omitted (too little data) shows its
 * `...Reason` in words instead of a number.
 */
import { formatMetric, METRICS, reasonInWords } from './metrics.ts';

export function RunMetricCards({
  metrics,
  currency,
}: {
  metrics: Record<string, unknown>;
  currency: string;
}) {
  return (
    <dl className="runs-metrics" data-testid="metric-cards">
      {METRICS.map(({ key, label, kind }) => {
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
