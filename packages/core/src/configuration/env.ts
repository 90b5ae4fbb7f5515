import { describeValue } from './messages.ts';

/** A problem found in a configuration: the offending field path and what to do about it. */
export interface ConfigurationIssue {
  path: (string | number)[];
  message: string;
}

export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The platform's own prefix (decision 19c variables); compared case-sensitively (decision 24). */
export const ENV_RESERVED_PREFIX = 'PLATFORM_';
/** Set by the platform for every run (decision 19c); a configuration may not override them. */
export const ENV_RESERVED_KEYS = ['PROXY_WS_URL', 'PROXY_REST_URL', 'TRADING_GATEWAY_URL'] as const;
/** The placeholder the API shows for withheld values; storing it would be indistinguishable. */
export const ENV_REDACTED_VALUE = '<redacted>';
export const ENV_MAX_KEYS = 100;
export const ENV_MAX_VALUE_BYTES = 4096;
export const ENV_MAX_TOTAL_BYTES = 65536;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Decision 24: C0 controls U+0000-U+001F and DEL plus C1 controls U+007F-U+009F. */
function firstControlCharacter(value: string): number | undefined {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return code;
  }
  return undefined;
}

const hex = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

function keyIssue(key: string): string | undefined {
  if (!ENV_KEY_PATTERN.test(key)) {
    return `key ${JSON.stringify(key)} is not a valid name; keys must match [A-Za-z_][A-Za-z0-9_]*`;
  }
  if (key.startsWith(ENV_RESERVED_PREFIX)) {
    return `key ${JSON.stringify(key)} uses the reserved prefix ${ENV_RESERVED_PREFIX} (the platform sets those variables)`;
  }
  if ((ENV_RESERVED_KEYS as readonly string[]).includes(key)) {
    return `key ${JSON.stringify(key)} is reserved (the platform sets it for every run)`;
  }
  return undefined;
}

function valueIssue(value: unknown): string | undefined {
  if (typeof value !== 'string') {
    return value === null
      ? 'must not be null (omit the key instead); values are strings'
      : `must be a string, got ${describeValue(value)}`;
  }
  const bytes = utf8Bytes(value);
  if (bytes > ENV_MAX_VALUE_BYTES) {
    return `value is ${bytes} bytes in UTF-8; the limit is ${ENV_MAX_VALUE_BYTES} bytes`;
  }
  const control = firstControlCharacter(value);
  if (control !== undefined) {
    return `value contains the control character ${hex(control)}; control characters (U+0000-U+001F, U+007F-U+009F) are not allowed`;
  }
  if (value === ENV_REDACTED_VALUE) {
    return `value ${JSON.stringify(ENV_REDACTED_VALUE)} is reserved (it is the placeholder for withheld values); send the real value`;
  }
  return undefined;
}

/**
 * Every `env` rule (spec: Environment rules, decision 24), as a list of issues under `path`. It takes
 * any map, not only a configuration's, because the rules also hold for the merged image + config +
 * per-run map that the platform checks before a run (decision 25).
 */
export function envIssues(
  env: Readonly<Record<string, unknown>>,
  path: readonly (string | number)[] = ['env'],
): ConfigurationIssue[] {
  const issues: ConfigurationIssue[] = [];
  const entries = Object.entries(env);
  if (entries.length > ENV_MAX_KEYS) {
    issues.push({
      path: [...path],
      message: `has ${entries.length} keys; at most ${ENV_MAX_KEYS} are allowed`,
    });
  }
  let total = 0;
  for (const [key, value] of entries) {
    const problem = keyIssue(key) ?? valueIssue(value);
    if (problem !== undefined) issues.push({ path: [...path, key], message: problem });
    total += utf8Bytes(key) + (typeof value === 'string' ? utf8Bytes(value) : 0);
  }
  if (total > ENV_MAX_TOTAL_BYTES) {
    issues.push({
      path: [...path],
      message: `keys and values total ${total} bytes in UTF-8; the limit is ${ENV_MAX_TOTAL_BYTES} bytes`,
    });
  }
  return issues;
}

/**
 * Layers env maps, lowest first (image, then configuration, then per-run): a higher layer overrides a
 * key, and a key it does not set falls through. Absent layers are skipped.
 */
export function mergeEnv(
  ...layers: (Readonly<Record<string, string>> | undefined)[]
): Record<string, string> {
  // A Map then fromEntries, so that even a key named "__proto__" stays an ordinary own key.
  const merged = new Map<string, string>();
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const [key, value] of Object.entries(layer)) merged.set(key, value);
  }
  return Object.fromEntries(merged);
}
