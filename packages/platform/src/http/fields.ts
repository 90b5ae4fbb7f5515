import { z } from 'zod';

/** Decision 20: a field may not be null (omit it instead), and names may not be blank. */
export const notNullMessage = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === null ? 'must not be null; omit the field instead' : `must be ${expected}`;

export const nameField = (max = 200) =>
  z
    .string({ error: notNullMessage('a string') })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim() !== '', 'must not be empty or only spaces');

export const descriptionField = (max = 2000) =>
  z.string({ error: notNullMessage('a string') }).max(max, `must be at most ${max} characters`);
