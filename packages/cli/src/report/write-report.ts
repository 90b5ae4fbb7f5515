/** Writes a rendered report to a file, creating its directory. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderReport } from './render-report.ts';
import type { ReportInput } from './report-input.ts';

/** Renders `input` to `path` (UTF-8); returns the path and the document's size in bytes. */
export async function writeReport(
  path: string,
  input: ReportInput,
): Promise<{ path: string; bytes: number }> {
  const html = renderReport(input);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, html, 'utf8');
  return { path, bytes: Buffer.byteLength(html, 'utf8') };
}
