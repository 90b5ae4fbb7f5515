import {
  type DataCoverage,
  GRANULARITIES,
  type InstrumentDefinition,
  type InstrumentStatus,
  type MarketId,
  type SpreadModel,
} from '@hindsight/core';
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { dataCoverage, instruments } from '../db/schema.ts';

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
 * data is imported, so it is cached: writes through this repository refresh it at once, and a short
 * TTL picks up imports made by other processes sharing the database.
 */
const CACHE_TTL_MS = 5_000;

export class CatalogRepository {
  private cached: { at: number; instruments: Promise<Instrument[]> } | undefined;

  constructor(
    private readonly db: Db,
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
    const rows = await this.db
      .select()
      .from(instruments)
      .leftJoin(dataCoverage, eq(dataCoverage.symbol, instruments.symbol))
      .orderBy(asc(instruments.symbol));
    return rows.map(({ instruments: i, data_coverage: c }) => {
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

  async isEmpty(): Promise<boolean> {
    const [row] = await this.db.select({ symbol: instruments.symbol }).from(instruments).limit(1);
    return row === undefined;
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

  /** Records what the market-data store holds, widening any range already recorded. */
  async recordCoverage(coverage: DataCoverage[], now = new Date()): Promise<void> {
    this.cached = undefined;
    for (const c of coverage) {
      await this.db
        .insert(dataCoverage)
        .values({ symbol: c.symbol, firstDay: c.firstDay, lastDay: c.lastDay, updatedAt: now })
        .onConflictDoUpdate({
          target: dataCoverage.symbol,
          set: {
            firstDay: sql`least(${dataCoverage.firstDay}, excluded.first_day)`,
            lastDay: sql`greatest(${dataCoverage.lastDay}, excluded.last_day)`,
            updatedAt: now,
          },
        });
    }
  }
}
