import {
  badRequest,
  type CatalogCheckedConfiguration,
  type CatalogLookup,
  catalogIssues,
  type DataCoverage,
  formatIssues,
  GRANULARITIES,
  type InstrumentDefinition,
  type InstrumentStatus,
  type MarketId,
  type SpreadModel,
} from '@hindsight/core';
import { asc, sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { instruments } from '../db/schema.ts';

/** What the market-data store holds for a symbol (first and last UTC day), if anything. */
export type CoverageSource = (symbol: string) => Promise<DataCoverage | undefined>;

/** The public catalog record (spec: Instrument), availability read from what the store holds. */
export interface Instrument {
  symbol: string;
  name: string;
  market: MarketId;
  dataSymbol: string;
  underlying: string;
  denomination: string;
  dataStartDate?: string;
  dataEndDate?: string;
  granularities: string[];
  status: InstrumentStatus;
  tickSize?: string;
  pricePrecision?: number;
  spreadModel: SpreadModel;
}

/**
 * The catalog is read on every catalog request and every configuration write, and changes only when
 * definitions are seeded or data is imported, so it is cached: seeding refreshes it at once, and a
 * short TTL picks up imports made by other processes (`hindsight data import`).
 */
const CACHE_TTL_MS = 5_000;

export class CatalogRepository {
  private cached: { at: number; instruments: Promise<Instrument[]> } | undefined;

  constructor(
    private readonly db: Db,
    private readonly coverageOf: CoverageSource,
    private readonly now: () => number = Date.now,
  ) {}

  all(): Promise<Instrument[]> {
    const now = this.now();
    if (!this.cached || now - this.cached.at > CACHE_TTL_MS) {
      const instruments = this.load();
      this.cached = { at: now, instruments };
      instruments.catch(() => {
        if (this.cached?.instruments === instruments) this.cached = undefined;
      });
    }
    return this.cached.instruments;
  }

  private async load(): Promise<Instrument[]> {
    const rows = await this.db.select().from(instruments).orderBy(asc(instruments.symbol));
    const coverage = await Promise.all(rows.map((i) => this.coverageOf(i.symbol)));
    return rows.map((i, index) => {
      const c = coverage[index];
      const instrument: Instrument = {
        symbol: i.symbol,
        name: i.name,
        market: i.market as MarketId,
        dataSymbol: i.dataSymbol,
        underlying: i.underlying,
        denomination: i.denomination,
        granularities: [...GRANULARITIES],
        status: c ? 'available' : 'coming_soon',
        spreadModel: i.spreadModel as SpreadModel,
      };
      if (c) {
        instrument.dataStartDate = c.firstDay;
        instrument.dataEndDate = c.lastDay;
      }
      if (i.tickSize !== null) instrument.tickSize = i.tickSize;
      if (i.pricePrecision !== null) instrument.pricePrecision = i.pricePrecision;
      return instrument;
    });
  }

  /**
   * Decision 21 for a configuration about to be saved or run: every instrument a catalog symbol, not
   * coming soon, with data overlapping the window; otherwise 400 naming each offending subscription.
   * `path` prefixes the issue paths (e.g. `['configurations', 2]` in a batch).
   */
  async assertConfigurationRules(
    config: CatalogCheckedConfiguration,
    path: readonly (string | number)[] = [],
  ): Promise<void> {
    const all = await this.all();
    const bySymbol = new Map(all.map((i) => [i.symbol, i]));
    const byDataSymbol = new Map(all.map((i) => [i.dataSymbol, i]));
    const lookup: CatalogLookup = {
      bySymbol: (s) => bySymbol.get(s),
      byDataSymbol: (s) => byDataSymbol.get(s),
    };
    const issues = catalogIssues(config, lookup);
    if (issues.length > 0) {
      const { message, details } = formatIssues(
        issues.map((issue) => ({ ...issue, path: [...path, ...issue.path] })),
      );
      throw badRequest(message, details);
    }
  }

  /** Inserts or refreshes instrument definitions (idempotent; run at every start). */
  async upsertDefinitions(definitions: InstrumentDefinition[]): Promise<void> {
    if (definitions.length === 0) return;
    this.cached = undefined;
    await this.db
      .insert(instruments)
      .values(
        definitions.map((d) => ({
          symbol: d.symbol,
          dataSymbol: d.dataSymbol,
          name: d.name,
          market: d.market,
          underlying: d.underlying,
          denomination: d.denomination,
          tickSize: d.tickSize ?? null,
          pricePrecision: d.pricePrecision ?? null,
          spreadModel: d.spreadModel,
        })),
      )
      .onConflictDoUpdate({
        target: instruments.symbol,
        set: {
          dataSymbol: sql`excluded.data_symbol`,
          name: sql`excluded.name`,
          market: sql`excluded.market`,
          underlying: sql`excluded.underlying`,
          denomination: sql`excluded.denomination`,
          tickSize: sql`excluded.tick_size`,
          pricePrecision: sql`excluded.price_precision`,
          spreadModel: sql`excluded.spread_model`,
        },
      });
  }
}
