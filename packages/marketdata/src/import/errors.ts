/**
 * Why an import was refused. `file:line: reason`, the line being 1-based in the (decompressed) file; a
 * whole-file problem (unreadable archive, no data rows) names the line where data was expected.
 * Nothing of a refused import is returned, so nothing of it can be written.
 */
export class ImportError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly reason: string;

  constructor(file: string, line: number | undefined, reason: string) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${line}: ${reason}`);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}
