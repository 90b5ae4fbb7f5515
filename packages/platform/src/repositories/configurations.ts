import { conflict, newId } from '@hindsight/core';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { pgErrorCode } from '../db/errors.ts';
import { configurations } from '../db/schema.ts';
import { missingOwnedResource } from './ownership.ts';
import {
  afterKey,
  type CursorCodec,
  newestFirst,
  type Page,
  type PageRequest,
  toPage,
} from './pagination.ts';

/** The run settings a saved configuration holds (everything but its name, description and flag). */
export interface ConfigurationSettings {
  subscriptions: { instrument: string; events: string[] }[];
  startTime: string;
  endTime: string;
  positionMode: 'netting' | 'hedging';
  initialCapital: number;
  env?: Record<string, string>;
  costs?: Record<string, unknown>;
}

export interface ConfigurationInput extends ConfigurationSettings {
  name: string;
  description?: string | undefined;
  isActive: boolean;
}

export interface Configuration extends ConfigurationSettings {
  configId: string;
  ownerId: string;
  name: string;
  description?: string;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

type Row = typeof configurations.$inferSelect;

const toConfiguration = (row: Row): Configuration => {
  const settings = row.settings as ConfigurationSettings;
  const config: Configuration = {
    configId: row.id,
    ownerId: row.ownerId,
    name: row.name,
    isActive: row.isActive,
    subscriptions: settings.subscriptions,
    startTime: settings.startTime,
    endTime: settings.endTime,
    positionMode: settings.positionMode,
    initialCapital: settings.initialCapital,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (row.description !== null) config.description = row.description;
  if (settings.env !== undefined) config.env = settings.env;
  if (settings.costs !== undefined) config.costs = settings.costs;
  return config;
};

/** Just the run settings of a configuration (what a scenario copies from it). */
export const runSettingsOf = (input: ConfigurationSettings): ConfigurationSettings => {
  const settings: ConfigurationSettings = {
    subscriptions: input.subscriptions,
    startTime: input.startTime,
    endTime: input.endTime,
    positionMode: input.positionMode,
    initialCapital: input.initialCapital,
  };
  if (input.env !== undefined) settings.env = input.env;
  if (input.costs !== undefined) settings.costs = input.costs;
  return settings;
};

const MAX_NAME_LENGTH = 200;
const COPY_SUFFIX = ' (copy)';

/** Decision 29's `<name> (copy)`, shortening a long name so the copy stays a valid, updatable name. */
export const cloneName = (name: string): string =>
  `${name.slice(0, MAX_NAME_LENGTH - COPY_SUFFIX.length)}${COPY_SUFFIX}`;

export class ConfigurationRepository {
  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
  ) {}

  async create(ownerId: string, input: ConfigurationInput, now = new Date()): Promise<Configuration> {
    const [row] = await this.db
      .insert(configurations)
      .values({
        id: newId(),
        ownerId,
        name: input.name,
        description: input.description ?? null,
        isActive: input.isActive,
        settings: runSettingsOf(input),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toConfiguration(row as Row);
  }

  async get(ownerId: string, id: string): Promise<Configuration> {
    const [row] = await this.db
      .select()
      .from(configurations)
      .where(and(eq(configurations.id, id), eq(configurations.ownerId, ownerId)));
    if (!row) throw await missingOwnedResource(this.db, configurations, id, `Configuration ${id}`);
    return toConfiguration(row);
  }

  async list(ownerId: string, page: PageRequest & { activeOnly: boolean }): Promise<Page<Configuration>> {
    const after = page.cursor ? this.cursors.decode('configurations', page.cursor) : undefined;
    const rows = await this.db
      .select()
      .from(configurations)
      .where(
        and(
          eq(configurations.ownerId, ownerId),
          page.activeOnly ? eq(configurations.isActive, true) : undefined,
          after && afterKey(configurations.createdAt, configurations.id, after),
        ),
      )
      .orderBy(...newestFirst(configurations.createdAt, configurations.id))
      .limit(page.limit + 1);
    return toPage(rows, page.limit, 'configurations', this.cursors, toConfiguration);
  }

  /** Replaces the whole configuration (decision 26): omitted optional fields return to their defaults. */
  async replace(
    ownerId: string,
    id: string,
    input: ConfigurationInput,
    now = new Date(),
  ): Promise<Configuration> {
    const [row] = await this.db
      .update(configurations)
      .set({
        name: input.name,
        description: input.description ?? null,
        isActive: input.isActive,
        settings: runSettingsOf(input),
        updatedAt: now,
      })
      .where(and(eq(configurations.id, id), eq(configurations.ownerId, ownerId)))
      .returning();
    if (!row) throw await missingOwnedResource(this.db, configurations, id, `Configuration ${id}`);
    return toConfiguration(row);
  }

  /** Deletes the configuration; the auto-run foreign key makes "bound, so 409" atomic with the delete. */
  async delete(ownerId: string, id: string): Promise<void> {
    let deleted: { id: string }[];
    try {
      deleted = await this.db
        .delete(configurations)
        .where(and(eq(configurations.id, id), eq(configurations.ownerId, ownerId)))
        .returning({ id: configurations.id });
    } catch (error) {
      if (pgErrorCode(error) === '23503') {
        throw conflict(
          `Configuration ${id} is bound to a strategy's auto-run; remove it there (PUT /v1/strategies/{strategy_id}/auto-run-configs) first.`,
        );
      }
      throw error;
    }
    if (deleted.length === 0)
      throw await missingOwnedResource(this.db, configurations, id, `Configuration ${id}`);
  }

  async clone(ownerId: string, id: string, now = new Date()): Promise<Configuration> {
    const source = await this.get(ownerId, id);
    const { configId: _id, ownerId: _owner, createdAt: _c, updatedAt: _u, ...rest } = source;
    return this.create(ownerId, { ...rest, name: cloneName(source.name) }, now);
  }
}
