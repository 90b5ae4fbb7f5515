/**
 * The /v1 calls the runs pages make beyond listing: cancel, delete, logs, and the result files as
 * downloads. Logs and result files are not JSON, so they go through plain fetch with the session's
 * bearer token; the others through the typed client.
 */
import { api, errorMessage } from '../api/client.ts';
import { readSession } from '../session.ts';

export type Outcome = { ok: true } | { ok: false; message: string };

export async function cancelRun(strategyId: string, scenarioId: string): Promise<Outcome> {
  const { error, response } = await api.POST('/v1/strategies/{strategy_id}/scenarios/{scenario_id}/cancel', {
    params: { path: { strategy_id: strategyId, scenario_id: scenarioId } },
  });
  return response.ok
    ? { ok: true }
    : { ok: false, message: errorMessage(error, 'Could not cancel the run.') };
}

export async function deleteRun(strategyId: string, scenarioId: string): Promise<Outcome> {
  const { error, response } = await api.DELETE('/v1/strategies/{strategy_id}/scenarios/{scenario_id}', {
    params: { path: { strategy_id: strategyId, scenario_id: scenarioId } },
  });
  return response.ok
    ? { ok: true }
    : { ok: false, message: errorMessage(error, 'Could not delete the run.') };
}

async function authorizedFetch(path: string): Promise<Response> {
  const session = readSession();
  return fetch(path, { headers: session ? { Authorization: `Bearer ${session.token}` } : {} });
}

async function failure(response: Response, fallback: string): Promise<string> {
  const body = await response.json().catch(() => undefined);
  return errorMessage(body, `${fallback} (HTTP ${response.status}).`);
}

export interface RunLog {
  text: string;
  /** What the strategy wrote in all; more than `text` holds when the middle was dropped. */
  totalBytes: number;
  shownBytes: number;
}

export async function fetchLog(
  strategyId: string,
  scenarioId: string,
  stream: 'stdout' | 'stderr',
): Promise<{ ok: true; log: RunLog } | { ok: false; message: string }> {
  let response: Response;
  try {
    response = await authorizedFetch(
      `/v1/strategies/${strategyId}/scenarios/${scenarioId}/logs?stream=${stream}`,
    );
  } catch {
    return { ok: false, message: 'Could not reach the platform.' };
  }
  if (!response.ok) return { ok: false, message: await failure(response, `Could not load ${stream}`) };
  const bytes = new Uint8Array(await response.arrayBuffer());
  const total = Number(response.headers.get('x-hindsight-output-bytes'));
  return {
    ok: true,
    log: {
      text: new TextDecoder().decode(bytes),
      totalBytes: Number.isFinite(total) ? total : bytes.length,
      shownBytes: bytes.length,
    },
  };
}

export type ResultFile = 'trades' | 'timeseries' | 'metadata';

/** Downloads one of the run's zstd result files as served by /v1, byte for byte. */
export async function downloadResultFile(
  strategyId: string,
  scenarioId: string,
  file: ResultFile,
): Promise<Outcome> {
  let response: Response;
  try {
    response = await authorizedFetch(`/v1/strategies/${strategyId}/scenarios/${scenarioId}/${file}`);
  } catch {
    return { ok: false, message: 'Could not reach the platform.' };
  }
  if (!response.ok)
    return { ok: false, message: await failure(response, `Could not download the ${file} file`) };
  saveBlob(await response.blob(), `${scenarioId}-${file}.json.zst`);
  return { ok: true };
}

/** Hands a blob to the browser as a file download. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on a later task: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
