/**
 * Polls while there is something live to watch: calls `tick` every `intervalMs` while `active`,
 * pausing while the tab is hidden (and catching up at once when it is shown again). One tick at a
 * time: the next is scheduled only after the previous one settled, so a slow platform is not piled on.
 */
import { useEffect, useRef } from 'react';

export function usePolling(tick: () => Promise<unknown>, active: boolean, intervalMs = 1000): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let running = false;
    const schedule = () => {
      if (stopped || document.hidden) return;
      timer = setTimeout(run, intervalMs);
    };
    const run = async () => {
      timer = undefined;
      if (stopped || running) return;
      running = true;
      try {
        await latest.current();
      } catch {
        // The tick shows its own errors; polling goes on.
      } finally {
        running = false;
      }
      schedule();
    };
    const onVisibility = () => {
      if (document.hidden) {
        if (timer) clearTimeout(timer);
        timer = undefined;
      } else if (!timer && !running) void run();
    };
    document.addEventListener('visibilitychange', onVisibility);
    schedule();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [active, intervalMs]);
}
