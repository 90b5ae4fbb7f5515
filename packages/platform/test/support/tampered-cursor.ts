/**
 * A cursor with its signature's last character changed: always a different signature (replacing the
 * last characters with fixed ones left it unchanged whenever the signature already ended in them).
 */
export function tamperedCursor(cursor: string): string {
  const last = cursor.slice(-1);
  return `${cursor.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
}
