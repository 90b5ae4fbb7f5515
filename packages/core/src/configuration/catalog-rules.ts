import type { ConfigurationIssue } from './env.ts';
import { compareInstants, parseIsoInstant, parseUtcDay } from './timestamps.ts';

/** What the rules need to know of a catalog instrument. */
export interface InstrumentView {
  symbol: string;
  status: 'available' | 'coming_soon';
  /** First UTC day with data, `YYYY-MM-DD`. */
  dataStartDate?: string;
  /** Last UTC day with data, `YYYY-MM-DD` (inclusive). */
  dataEndDate?: string;
}

export interface CatalogLookup {
  bySymbol(symbol: string): InstrumentView | undefined;
  byDataSymbol(dataSymbol: string): InstrumentView | undefined;
}

export interface CatalogCheckedConfiguration {
  subscriptions: readonly { instrument: string }[];
  startTime: string;
  endTime: string;
}

const MS_PER_DAY = 86_400_000;

function unknownInstrumentMessage(instrument: string, lookup: CatalogLookup): string {
  const viaDataSymbol = lookup.byDataSymbol(instrument);
  if (viaDataSymbol) {
    return `${JSON.stringify(instrument)} is a dataSymbol; use the platform symbol ${JSON.stringify(viaDataSymbol.symbol)}`;
  }
  // Symbols are upper-case; a lower-case near miss deserves the exact spelling.
  const caseInsensitive =
    lookup.bySymbol(instrument.toUpperCase()) ?? lookup.byDataSymbol(instrument.toUpperCase());
  if (caseInsensitive) {
    return `unknown instrument ${JSON.stringify(instrument)}; symbols are case-sensitive, did you mean ${JSON.stringify(caseInsensitive.symbol)}?`;
  }
  return `unknown instrument ${JSON.stringify(instrument)}; use an exact platform symbol listed by GET /v1/instruments`;
}

/**
 * Decision 21: the window [startTime, endTime) must overlap the instrument's data days
 * [dataStartDate 00:00Z, dataEndDate + 1 day 00:00Z). Answers a message when it does not.
 */
function windowMessage(instrument: InstrumentView, config: CatalogCheckedConfiguration): string | undefined {
  const start = parseIsoInstant(config.startTime);
  const end = parseIsoInstant(config.endTime);
  const dataStart =
    instrument.dataStartDate === undefined ? undefined : parseUtcDay(instrument.dataStartDate);
  const dataEndDay = instrument.dataEndDate === undefined ? undefined : parseUtcDay(instrument.dataEndDate);
  if (start === undefined || end === undefined || dataStart === undefined) return undefined;
  const endsAfterDataStart = compareInstants(end, { ms: dataStart, subMs: '' }) > 0;
  const startsBeforeDataEnd =
    dataEndDay === undefined || compareInstants(start, { ms: dataEndDay + MS_PER_DAY, subMs: '' }) < 0;
  if (endsAfterDataStart && startsBeforeDataEnd) return undefined;
  const range = `${instrument.dataStartDate} to ${instrument.dataEndDate ?? 'today'}`;
  return (
    `the window ${config.startTime} to ${config.endTime} does not overlap the data of ${JSON.stringify(instrument.symbol)}, ` +
    `which covers ${range} (UTC days, inclusive); move startTime/endTime into that range`
  );
}

/**
 * The rules that need the catalog (decision 21), for a configuration that already passed the schema.
 * Issues are reported at `subscriptions[i].instrument`, in subscription order.
 */
export function catalogIssues(
  config: CatalogCheckedConfiguration,
  lookup: CatalogLookup,
): ConfigurationIssue[] {
  const issues: ConfigurationIssue[] = [];
  config.subscriptions.forEach(({ instrument }, index) => {
    const path = ['subscriptions', index, 'instrument'];
    const found = lookup.bySymbol(instrument);
    if (!found) {
      issues.push({ path, message: unknownInstrumentMessage(instrument, lookup) });
      return;
    }
    if (found.status === 'coming_soon') {
      issues.push({
        path,
        message: `${JSON.stringify(instrument)} is coming soon and has no data yet; choose an available instrument (GET /v1/instruments?status=available)`,
      });
      return;
    }
    const outside = windowMessage(found, config);
    if (outside !== undefined) issues.push({ path, message: outside });
  });
  return issues;
}
