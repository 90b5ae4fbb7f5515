import { EventEmitter } from 'node:events';

/**
 * In-process shortcuts between the API and the workers of the same process: a created scenario wakes
 * an idle worker at once, and a cancel or delete stops its run at once. Workers elsewhere learn the same
 * facts from the table (their poll and their lease renewal), only a little later.
 */
export class ScenarioSignals {
  private readonly events = new EventEmitter().setMaxListeners(0);

  queued(): void {
    this.events.emit('queued');
  }

  stopped(scenarioId: string): void {
    this.events.emit('stopped', scenarioId);
  }

  onQueued(listener: () => void): void {
    this.events.on('queued', listener);
  }

  offQueued(listener: () => void): void {
    this.events.off('queued', listener);
  }

  onStopped(listener: (scenarioId: string) => void): void {
    this.events.on('stopped', listener);
  }

  offStopped(listener: (scenarioId: string) => void): void {
    this.events.off('stopped', listener);
  }
}
