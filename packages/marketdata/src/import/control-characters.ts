/**
 * Control characters in market-data text. A NUL or other control character inside a field is a damaged
 * or binary file, never data: every importer refuses the line holding one (sources.ts checks each
 * decoded chunk once, so no field or header escapes, whatever the format reads). The only blanks are
 * space, tab, CR and LF (`isBlank`), and only they are trimmed around fields.
 */

/** C0 controls except tab, LF and CR; DEL; C1 controls (Unicode category Cc, as decision 24 counts them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Index of the first control character in `text` at or after `from`, or Infinity. */
export function controlCharacterAt(text: string, from = 0): number {
  CONTROL.lastIndex = from;
  return CONTROL.exec(text)?.index ?? Number.POSITIVE_INFINITY;
}

/** Space, tab, CR or LF: what may be trimmed around a field. */
export function isBlank(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 10;
}

const NAMES: Record<number, string> = { 0: 'NUL', 27: 'ESC', 127: 'DEL' };

const codePoint = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** The text around a character, with every control character (tab too) shown as an escape. */
function excerpt(text: string, lineStart: number, lineEnd: number, at: number): string {
  const from = Math.max(lineStart, at - 20);
  const to = Math.min(lineEnd, at + 20);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped.
  const shown = text.slice(from, to).replace(/[\u0000-\u001F\u007F-\u009F]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `${from > lineStart ? '...' : ''}${shown}${to < lineEnd ? '...' : ''}`;
}

/** Why a line is refused: the character, where it is in the line, and the text around it. */
export function controlCharacterReason(text: string, lineStart: number, lineEnd: number, at: number): string {
  const code = text.charCodeAt(at);
  const name = NAMES[code];
  return (
    `control character ${codePoint(code)}${name ? ` (${name})` : ''} at character ${at - lineStart + 1} ` +
    `of the line ("${excerpt(text, lineStart, lineEnd, at)}"); fields hold only text, so this is a ` +
    'damaged or binary file'
  );
}
