import { sql } from 'drizzle-orm';
import {
  boolean,
  char,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

/** Millisecond precision: the API renders ISO-8601 with milliseconds and cursors must round-trip exactly. */
const instant = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash').notNull(),
  createdAt: instant('created_at').notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    prefix: char('prefix', { length: 8 }).primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    /** SHA-256 of the whole key: the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    lastUsedAt: instant('last_used_at'),
    revokedAt: instant('revoked_at'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId, t.createdAt)],
);

export const strategies = pgTable(
  'strategies',
  {
    id: uuid('id').primaryKey(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    createdBy: text('created_by').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: ['active', 'archived'] })
      .notNull()
      .default('active'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('strategies_owner_page_idx').on(t.ownerId, t.createdAt, t.id)],
);

export const configurations = pgTable(
  'configurations',
  {
    id: uuid('id').primaryKey(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    /** The run settings exactly as validated (subscriptions, window, mode, capital, env, costs). */
    settings: jsonb('settings').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('configurations_owner_page_idx').on(t.ownerId, t.createdAt, t.id)],
);

export const autoRunBindings = pgTable(
  'auto_run_bindings',
  {
    strategyId: uuid('strategy_id')
      .notNull()
      .references(() => strategies.id),
    configId: uuid('config_id')
      .notNull()
      .references(() => configurations.id),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.strategyId, t.configId] }), index('auto_run_config_idx').on(t.configId)],
);

export const instruments = pgTable('instruments', {
  symbol: text('symbol').primaryKey(),
  dataSymbol: text('data_symbol').notNull().unique(),
  name: text('name').notNull(),
  market: text('market').notNull(),
  underlying: text('underlying').notNull(),
  denomination: text('denomination').notNull(),
  tickSize: text('tick_size'),
  pricePrecision: integer('price_precision'),
  spreadModel: jsonb('spread_model').notNull().default(sql`'{"kind":"zero"}'::jsonb`),
});
