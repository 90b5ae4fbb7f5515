/**
 * PostgreSQL text and jsonb cannot hold U+0000 or unpaired UTF-16 surrogates (a write fails, or the
 * character silently becomes U+FFFD). JSON bodies can carry both and query strings can carry NUL, so
 * request-validation.ts refuses them in every validated body and query string, naming the field or
 * parameter, rather than failing or being altered in storage. (Schema rules such as env's
 * control-character rule speak first, with their own message.)
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (UNPAIRED_SURROGATE.test(text))
    return 'must be well-formed Unicode text; it contains an unpaired UTF-16 surrogate';
  return undefined;
}

export function unstorableTextIssues(value: unknown): { path: PropertyKey[]; message: string }[] {
  const issues: { path: PropertyKey[]; message: string }[] = [];
  const visit = (node: unknown, path: PropertyKey[]): void => {
    if (typeof node === 'string') {
      const message = unstorable(node);
      if (message) issues.push({ path, message });
    } else if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, [...path, index]);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        const message = unstorable(key);
        if (message) issues.push({ path: [...path, key], message: `key ${message}` });
        else visit(item, [...path, key]);
      }
    }
  };
  visit(value, []);
  return issues;
}
