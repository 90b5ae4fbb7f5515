/**
 * A COMPLETE run's downloads: the three result files as /v1 serves them (zstd-compressed JSON, fetched
 * with the session and saved byte for byte), and the same files decoded, as plain JSON.
 */
import { useState } from 'react';
import { downloadResultFile, type ResultFile, saveBlob } from './run-api.ts';

const FILES: ResultFile[] = ['trades', 'timeseries', 'metadata'];

export function RunDownloads({
  strategyId,
  scenarioId,
  decoded,
}: {
  strategyId: string;
  scenarioId: string;
  /** The decoded files as the page loaded them. */
  decoded: Record<ResultFile, unknown>;
}) {
  const [busy, setBusy] = useState<ResultFile | null>(null);
  const [error, setError] = useState<string | null>(null);

  const compressed = async (file: ResultFile) => {
    setBusy(file);
    setError(null);
    const outcome = await downloadResultFile(strategyId, scenarioId, file);
    setBusy(null);
    if (!outcome.ok) setError(outcome.message);
  };

  const json = (file: ResultFile) =>
    saveBlob(
      new Blob([JSON.stringify(decoded[file])], { type: 'application/json' }),
      `${scenarioId}-${file}.json`,
    );

  return (
    <div data-testid="run-downloads">
      <div className="row runs-downloads">
        {FILES.map((file) => (
          <button
            key={file}
            type="button"
            className="secondary"
            disabled={busy === file}
            onClick={() => void compressed(file)}
          >
            Download {file}.json.zst
          </button>
        ))}
      </div>
      <p className="runs-hint">As the API serves them: zstd-compressed JSON (decompress with zstd -d).</p>
      <div className="row runs-downloads">
        {FILES.map((file) => (
          <button key={file} type="button" className="secondary" onClick={() => json(file)}>
            Download {file}.json
          </button>
        ))}
      </div>
      <p className="runs-hint">Decoded, as plain JSON.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
