import type { z } from 'zod';
import {
  type InlineConfiguration,
  inlineConfigurationSchema,
  type SavedConfiguration,
  savedConfigurationSchema,
} from './schema.ts';

/** How many issues the one-line `message` spells out before pointing at `details`. */
const ISSUES_IN_MESSAGE = 3;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** JS-style rendering of a field path: `subscriptions[0].events[2]`, `env["bad key"]`; the root is "". */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment))
      text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

export interface FormattedIssues {
  /** One line naming the first offending field, e.g. `costs.commission: unknown key "foo"; remove it`. */
  message: string;
  /** JSON array of every issue, `[{"path": "...", "message": "..."}]`, for the error envelope's `details`. */
  details: string;
}

type IssueLike = { readonly path: readonly PropertyKey[]; readonly message: string };

const line = (issue: { path: string; message: string }): string =>
  `${issue.path === '' ? 'request body' : issue.path}: ${issue.message}`;

/**
 * Formats zod issues (or the same-shaped issues of `envIssues`/`catalogIssues`) for a 400 response.
 * Issue order is kept: zod reports fields in schema order, so "first" is stable.
 */
export function formatIssues(source: z.ZodError | readonly IssueLike[]): FormattedIssues {
  const list = Array.isArray(source) ? (source as readonly IssueLike[]) : (source as z.ZodError).issues;
  const issues = list.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
  if (issues.length === 0) return { message: 'invalid configuration', details: '[]' };
  const shown = issues.slice(0, ISSUES_IN_MESSAGE).map(line).join('; ');
  const rest = issues.length - ISSUES_IN_MESSAGE;
  const message = rest > 0 ? `${shown}; and ${rest} more issue${rest === 1 ? '' : 's'} (see details)` : shown;
  return { message, details: JSON.stringify(issues) };
}

export type ConfigurationKind = 'inline' | 'saved';

export type ValidationResult<T> = { ok: true; value: T } | ({ ok: false } & FormattedIssues);

/**
 * Validates a request body against the inline or the saved-config schema. Never throws: any JSON (or
 * any other value) yields a result. Catalog rules are separate (`catalogIssues`), as they need data.
 */
export function validateConfiguration(kind: 'inline', body: unknown): ValidationResult<InlineConfiguration>;
export function validateConfiguration(kind: 'saved', body: unknown): ValidationResult<SavedConfiguration>;
export function validateConfiguration(
  kind: ConfigurationKind,
  body: unknown,
): ValidationResult<InlineConfiguration | SavedConfiguration>;
export function validateConfiguration(
  kind: ConfigurationKind,
  body: unknown,
): ValidationResult<InlineConfiguration | SavedConfiguration> {
  const result =
    kind === 'inline' ? inlineConfigurationSchema.safeParse(body) : savedConfigurationSchema.safeParse(body);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, ...formatIssues(result.error) };
}
