/**
 * Text that goes into the report's HTML: escaped element text and attributes, JSON that cannot end
 * the script element holding it, and inlined script source.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe as element content and as a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
}

/**
 * JSON for a `<script type="application/json">` element: every `<` is written `\u003c`, so no value
 * can close the element (`</script>`) or open a comment (`<!--`); `JSON.parse` reads it back as `<`.
 * U+2028 and U+2029 are escaped too, so the text is also a valid JavaScript literal.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * Script source to inline in a `<script>` element. `</script` ends the element: in JavaScript it can
 * only occur in a string, template, regular expression or comment, where `<\/script` means the same,
 * so it is rewritten. `<!--` (which changes how the HTML parser reads the rest of the element) has no
 * rewrite that is safe everywhere, so source holding it is refused.
 */
export function inlineScript(source: string): string {
  if (source.includes('<!--')) throw new Error('inline script source must not contain "<!--"');
  return source.replace(/<\/(script)/gi, '<\\/$1');
}
