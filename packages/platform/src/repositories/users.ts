import { newId } from '@hindsight/core';
import { count, eq } from 'drizzle-orm';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import type { Db } from '../db/database.ts';
import { users } from '../db/schema.ts';

export interface User {
  id: string;
  email: string;
  createdAt: Date;
}

/** Emails are matched case-insensitively: they are stored lower-cased. */
const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class UserRepository {
  constructor(private readonly db: Db) {}

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(users);
    return row?.n ?? 0;
  }

  async findByEmail(email: string): Promise<(User & { passwordHash: string }) | undefined> {
    const [row] = await this.db
      .select()
      .from(users)
      .where(eq(users.email, normalizeEmail(email)));
    return row;
  }

  async findById(id: string): Promise<User | undefined> {
    const [row] = await this.db
      .select({ id: users.id, email: users.email, createdAt: users.createdAt })
      .from(users)
      .where(eq(users.id, id));
    return row;
  }

  /** Creates the user, or returns undefined when the email is taken. */
  async create(email: string, password: string, now = new Date()): Promise<User | undefined> {
    const passwordHash = await hashPassword(password);
    const rows = await this.db
      .insert(users)
      .values({ id: newId(), email: normalizeEmail(email), passwordHash, createdAt: now })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id, email: users.email, createdAt: users.createdAt });
    return rows[0];
  }

  /** Ensures the user exists with this password (unattended deployments set the admin this way). */
  async ensure(email: string, password: string): Promise<{ user: User; created: boolean }> {
    const existing = await this.findByEmail(email);
    if (!existing) {
      const user = await this.create(email, password);
      if (user) return { user, created: true };
      return this.ensure(email, password);
    }
    if (!(await verifyPassword(existing.passwordHash, password))) {
      await this.db
        .update(users)
        .set({ passwordHash: await hashPassword(password) })
        .where(eq(users.id, existing.id));
    }
    return {
      user: { id: existing.id, email: existing.email, createdAt: existing.createdAt },
      created: false,
    };
  }

  async authenticate(email: string, password: string): Promise<User | undefined> {
    const user = await this.findByEmail(email);
    if (!user || !(await verifyPassword(user.passwordHash, password))) return undefined;
    return { id: user.id, email: user.email, createdAt: user.createdAt };
  }
}
