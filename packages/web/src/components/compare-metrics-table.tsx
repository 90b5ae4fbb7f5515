/**
 * The compare page's metrics: one row per metric, one column per run (in the order compared), each
 * value with its unit and its exact value in the title; the best value of each row is highlighted
 * and says so in words ("best") for screen readers. A metric the engine omitted shows its reason.
 */
import { bestIndexes, seriesStyle } from './compare-model.ts';
import { formatMetric, METRICS, metricValue, reasonInWords } from './metrics.ts';

export interface CompareColumn {
  scenarioId: string;
  name: string;
  metrics: Record<string, unknown>;
}

export function CompareMetricsTable({ columns }: { columns: readonly CompareColumn[] }) {
  return (
    // Focusable, so a keyboard can scroll twenty runs' columns on a phone.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-wrap" tabIndex={0} aria-label="Metrics side by side">
      <table className="compare-metrics" data-testid="compare-metrics">
        <caption className="visually-hidden">
          Metrics of the compared runs; the best value of each row is marked
        </caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            {columns.map((column, index) => (
              <th scope="col" key={column.scenarioId} data-scenario-id={column.scenarioId}>
                <span
                  className="compare-swatch"
                  style={{ borderColor: seriesStyle(index).colour }}
                  aria-hidden="true"
                />
                {column.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {METRICS.map((def) => {
            const best = new Set(
              bestIndexes(
                columns.map((c) => c.metrics),
                def,
              ),
            );
            return (
              <tr key={def.key} data-metric={def.key}>
                <th scope="row">
                  {def.label}
                  {def.better && (
                    <span className="muted compare-better">
                      {' '}
                      {def.better === 'higher' ? '↑ better' : '↓ better'}
                    </span>
                  )}
                </th>
                {columns.map((column, index) => {
                  const value = metricValue(column.metrics, def.key);
                  const reason = column.metrics[`${def.key}Reason`];
                  const isBest = best.has(index);
                  return (
                    <td
                      key={column.scenarioId}
                      className={isBest ? 'compare-num compare-best' : 'compare-num'}
                      data-best={isBest ? 'true' : undefined}
                      title={value === null ? undefined : String(value)}
                    >
                      {value !== null
                        ? formatMetric(value, def.kind)
                        : typeof reason === 'string'
                          ? reasonInWords(reason)
                          : '—'}
                      {isBest && <span className="visually-hidden"> (best)</span>}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
