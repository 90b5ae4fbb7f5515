/**
 * The catalog's coverage timeline: one horizontal bar per instrument over a shared date axis with a
 * tick at each new year, filled where the store has data and visibly empty (hatched, outlined red)
 * over the gaps. Each gap's dates are in its tooltip and, with the ranges, in a text list read by
 * screen readers. Narrow screens scroll the timeline sideways in a focusable region. Below it, every
 * gap in view is listed in words, for touch screens, where there is no tooltip to hover.
 */
import type { InstrumentCoverage } from '../api/internal.ts';
import { gapText, segments, type TimelineAxis } from './catalog-timeline-model.ts';

export function CatalogTimeline({
  axis,
  instruments,
}: {
  axis: TimelineAxis;
  instruments: readonly InstrumentCoverage[];
}) {
  const gaps = instruments.flatMap((i) => i.gaps.map((gap) => ({ symbol: i.symbol, gap })));
  return (
    <>
      <section
        className="catalog-timeline-scroll"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll it
        tabIndex={0}
        aria-label="Data coverage timeline"
      >
        <div className="catalog-timeline" data-testid="coverage-timeline">
          <div className="catalog-timeline-axis" aria-hidden="true">
            <span className="catalog-timeline-label" />
            <div className="catalog-timeline-track catalog-timeline-ticks">
              {axis.ticks.map((tick) => (
                <span key={tick.year} className="catalog-tick" style={{ left: `${tick.left}%` }}>
                  {tick.labelled ? tick.year : ''}
                </span>
              ))}
            </div>
          </div>
          <ul className="catalog-timeline-rows">
            {instruments.map((instrument) => (
              <Row key={instrument.symbol} axis={axis} instrument={instrument} />
            ))}
          </ul>
        </div>
      </section>
      <ul className="catalog-key" aria-hidden="true">
        <li>
          <span className="catalog-segment-data catalog-key-swatch" /> data
        </li>
        <li>
          <span className="catalog-segment-gap catalog-key-swatch" /> gap
        </li>
      </ul>
      {gaps.length > 0 ? (
        <div className="catalog-gaps">
          <h3>Gaps ({gaps.length})</h3>
          <ul>
            {gaps.map(({ symbol, gap }) => (
              <li key={`${symbol}-${gap.from}`}>
                <code>{symbol}</code>: {gapText(gap)}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="muted">
          No gaps: every instrument shown has data on each day from its first to its last.
        </p>
      )}
    </>
  );
}

function Row({ axis, instrument }: { axis: TimelineAxis; instrument: InstrumentCoverage }) {
  const parts = segments(axis, instrument);
  const gaps = instrument.gaps.length;
  const summary = instrument.firstDay
    ? `${instrument.firstDay} to ${instrument.lastDay}, ${gaps === 0 ? 'no gaps' : `${gaps} gap${gaps === 1 ? '' : 's'}`}`
    : 'no data stored';
  return (
    <li className="catalog-timeline-row" data-symbol={instrument.symbol}>
      <span className="catalog-timeline-label">
        <code>{instrument.symbol}</code>
        <span className="visually-hidden">: {summary}</span>
      </span>
      <div className="catalog-timeline-track" aria-hidden="true">
        {axis.ticks.map((tick) => (
          <span key={tick.year} className="catalog-gridline" style={{ left: `${tick.left}%` }} />
        ))}
        {parts.map((part) => (
          <span
            key={`${part.kind}-${part.range.from}`}
            className={`catalog-segment catalog-segment-${part.kind}`}
            data-testid={part.kind === 'gap' ? 'coverage-gap' : 'coverage-range'}
            data-from={part.range.from}
            data-to={part.range.to}
            style={{ left: `${part.left}%`, width: `${part.width}%` }}
            title={part.text}
          />
        ))}
        {parts.length === 0 && <span className="catalog-timeline-none">no data</span>}
      </div>
      {parts.length > 0 && (
        <ul className="visually-hidden">
          {parts.map((part) => (
            <li key={`${part.kind}-${part.range.from}`}>{part.text}</li>
          ))}
        </ul>
      )}
    </li>
  );
}
