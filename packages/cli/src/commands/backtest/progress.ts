import cliProgress from 'cli-progress';

/**
 * The progress of a backtest on the terminal: share of the window replayed, the simulated date
 * reached and candles per second. Drawn on stderr when it is a terminal; silent otherwise (logs and
 * pipes get the final table only).
 */
export interface Progress {
  update(simulatedMs: number, candles: number): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, stop() {} };

export function backtestProgress(window: { start: number; end: number }, stream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  const bar = new cliProgress.SingleBar(
    {
      format: '  {bar} {percentage}% | {date} | {speed} candles/s',
      hideCursor: true,
      stream,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  // Drawn from the first update: what the run logs as it starts (its warnings) comes before the bar.
  let drawn = false;
  return {
    update(simulatedMs, candles) {
      if (!drawn) {
        bar.start(100, 0, { date: new Date(window.start).toISOString().slice(0, 16), speed: 0 });
        drawn = true;
      }
      const share = (simulatedMs - window.start) / (window.end - window.start);
      const seconds = (performance.now() - started) / 1000;
      bar.update(Math.max(0, Math.min(100, Math.floor(share * 100))), {
        date: new Date(Math.max(simulatedMs, window.start)).toISOString().slice(0, 16).replace('T', ' '),
        speed: seconds > 0 ? Math.round(candles / seconds) : 0,
      });
    },
    stop() {
      if (drawn) bar.stop();
    },
  };
}
