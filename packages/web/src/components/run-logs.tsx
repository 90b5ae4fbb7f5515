/**
 * The strategy's output once the run has ended: stdout and stderr in two tabs, each fetched when first
 * shown. The platform keeps the first and last 512 KiB; when it dropped the middle, the tab says how
 * much the strategy wrote in all (the `x-hindsight-output-bytes` header).
 */
import { type KeyboardEvent, useEffect, useState } from 'react';
import { fetchLog, type RunLog } from './run-api.ts';

type Stream = 'stdout' | 'stderr';
const STREAMS: Stream[] = ['stdout', 'stderr'];

const bytes = (n: number) =>
  n >= 1_048_576
    ? `${(n / 1_048_576).toFixed(1)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${n} bytes`;

export function RunLogs({ strategyId, scenarioId }: { strategyId: string; scenarioId: string }) {
  const [stream, setStream] = useState<Stream>('stdout');
  const [logs, setLogs] = useState<Partial<Record<Stream, { log?: RunLog; error?: string }>>>({});

  useEffect(() => {
    if (logs[stream]) return;
    let live = true;
    void fetchLog(strategyId, scenarioId, stream).then((result) => {
      if (live)
        setLogs((all) => ({ ...all, [stream]: result.ok ? { log: result.log } : { error: result.message } }));
    });
    return () => {
      live = false;
    };
  }, [strategyId, scenarioId, stream, logs]);

  // Arrow keys move between tabs, as the ARIA tabs pattern has it.
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = stream === 'stdout' ? 'stderr' : 'stdout';
    setStream(next);
    document.getElementById(`log-tab-${next}`)?.focus();
  };

  const current = logs[stream];
  return (
    <div data-testid="run-logs">
      <div className="runs-tabs" role="tablist" aria-label="Output streams">
        {STREAMS.map((s) => (
          <button
            key={s}
            id={`log-tab-${s}`}
            type="button"
            role="tab"
            className="secondary"
            aria-selected={stream === s}
            aria-controls="log-panel"
            tabIndex={stream === s ? 0 : -1}
            onClick={() => setStream(s)}
            onKeyDown={onKey}
          >
            {s}
          </button>
        ))}
      </div>
      <div id="log-panel" role="tabpanel" aria-labelledby={`log-tab-${stream}`}>
        {!current && <p className="muted">Loading {stream}…</p>}
        {current?.error && (
          <p className="error" role="alert">
            {current.error}
          </p>
        )}
        {current?.log && (
          <>
            {current.log.totalBytes > current.log.shownBytes && (
              <p className="runs-hint">
                The strategy wrote {bytes(current.log.totalBytes)} to {stream}; shown are the first and the
                last 512 KiB ({bytes(current.log.shownBytes)}).
              </p>
            )}
            {current.log.text.length === 0 ? (
              <p className="muted">Nothing was written to {stream}.</p>
            ) : (
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
              <section className="runs-pre" tabIndex={0} aria-label={`${stream} of the strategy`}>
                <pre className="runs-log">{current.log.text}</pre>
              </section>
            )}
          </>
        )}
      </div>
    </div>
  );
}
