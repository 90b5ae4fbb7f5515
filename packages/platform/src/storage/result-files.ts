import type { ObjectStore } from '@hindsight/marketdata';

/**
 * A completed scenario's three zstd result files (metadata, timeseries, trades) as objects in the bucket
 * (`HINDSIGHT_STORAGE_URL=s3://...`): `<prefix>/results/<scenarioId>/<attempt>/<file>.json.zst`. Without
 * object storage they are the bytea columns of `scenario_results`, written in the COMPLETE transaction.
 *
 * The attempt is part of the key because an attempt whose lease lapsed may still be finishing while the
 * next attempt runs (decision 40): each writes its files before its COMPLETE update, and the one whose
 * update loses removes its own files without touching those the winner's row points at.
 */
export const RESULT_FILES = ['metadata', 'timeseries', 'trades'] as const;
export type ResultFileName = (typeof RESULT_FILES)[number];
export type ResultFiles = Record<ResultFileName, Uint8Array>;

export class ResultFileStore {
  constructor(private readonly objects: ObjectStore) {}

  private key(scenarioId: string, attempt: number, file: ResultFileName): string {
    return `${scenarioId}/${attempt}/${file}.json.zst`;
  }

  async put(scenarioId: string, attempt: number, files: ResultFiles): Promise<void> {
    for (const file of RESULT_FILES) await this.objects.put(this.key(scenarioId, attempt, file), files[file]);
  }

  async get(scenarioId: string, attempt: number, file: ResultFileName): Promise<Buffer | undefined> {
    const bytes = await this.objects.get(this.key(scenarioId, attempt, file));
    return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Removes the files of one attempt, or of every attempt of the scenario. */
  async delete(scenarioId: string, attempt?: number): Promise<void> {
    const prefix = attempt === undefined ? `${scenarioId}/` : `${scenarioId}/${attempt}/`;
    for (const key of await this.objects.list(prefix)) await this.objects.delete(key);
  }
}
