import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import type { EventStream, StreamClient } from './event-stream.ts';

/**
 * One strategy's WebSocket (trading-gateway.md: Events, Heartbeat, Acknowledgment):
 * - the server sends `{type: "ping", timestamp}` every `heartbeatMs` (15 s); a connection that lets
 *   two pings in a row go without a `pong` is closed (code 4000);
 * - client frames are `pong` and `event_ack`; anything else, or a frame that is not a JSON object of
 *   those shapes, gets an `error` event INVALID_MESSAGE and the connection stays open;
 * - events of one batch are written with the socket corked, so they leave in one write.
 */
export const HEARTBEAT_CLOSE_CODE = 4000;

type ClientFrame = { type: 'pong' } | { type: 'event_ack'; last_seq?: number };

/** Parses a client frame; a string is the reason it is not valid. */
export function parseClientFrame(text: string): ClientFrame | string {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return 'the frame is not valid JSON';
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame))
    return 'the frame must be a JSON object';
  const f = frame as Record<string, unknown>;
  if (f.type === 'pong') return { type: 'pong' };
  if (f.type !== 'event_ack') {
    return `unknown message type ${JSON.stringify(f.type ?? null)}; the gateway accepts "pong" and "event_ack"`;
  }
  if (f.correlation_id !== undefined && typeof f.correlation_id !== 'string')
    return 'event_ack.correlation_id must be a string';
  if (
    f.events_processed !== undefined &&
    (!Array.isArray(f.events_processed) || !f.events_processed.every((e) => typeof e === 'string'))
  )
    return 'event_ack.events_processed must be an array of strings';
  if (f.timestamp !== undefined && !Number.isSafeInteger(f.timestamp))
    return 'event_ack.timestamp must be an integer (Unix milliseconds)';
  if (f.last_seq === undefined || f.last_seq === null) return { type: 'event_ack' };
  if (!Number.isSafeInteger(f.last_seq) || (f.last_seq as number) < 0)
    return 'event_ack.last_seq must be a non-negative integer (the seq of the last event processed)';
  return { type: 'event_ack', last_seq: f.last_seq as number };
}

export class StrategyConnection implements StreamClient {
  private awaitingPong = false;
  private missedPongs = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private corked = false;

  constructor(
    readonly socket: WebSocket,
    private readonly raw: Socket,
    private readonly stream: EventStream,
    private readonly options: { heartbeatMs: number; now: () => number; log: Logger },
  ) {
    this.heartbeat = setInterval(() => this.ping(), options.heartbeatMs);
    this.heartbeat.unref();
    socket.on('message', (data, isBinary) => this.onFrame(isBinary ? undefined : data.toString()));
    socket.on('close', () => this.dispose());
    socket.on('error', (error) => options.log.debug({ err: error }, 'websocket error'));
  }

  get open(): boolean {
    return this.socket.readyState === 1;
  }

  sendFrames(frames: readonly string[]): void {
    if (!this.open) return;
    if (frames.length === 1) {
      this.socket.send(frames[0] as string);
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.raw.cork();
      process.nextTick(() => {
        this.corked = false;
        this.raw.uncork();
      });
    }
    for (const frame of frames) this.socket.send(frame);
  }

  /** Sends a last event and closes with `code` (1000 at the end of a run, 1001 on shutdown). */
  close(code: number, reason: string): void {
    if (this.open) this.socket.close(code, reason);
  }

  private ping(): void {
    if (!this.open) return;
    if (this.awaitingPong) {
      this.missedPongs++;
      if (this.missedPongs >= 2) {
        this.options.log.info('closing a strategy connection that missed two pongs');
        this.socket.close(HEARTBEAT_CLOSE_CODE, 'missed two pongs');
        return;
      }
    }
    this.awaitingPong = true;
    this.socket.send(JSON.stringify({ type: 'ping', timestamp: new Date().toISOString() }));
  }

  private onFrame(text: string | undefined): void {
    const frame =
      text === undefined ? 'binary frames are not accepted; send JSON text' : parseClientFrame(text);
    if (typeof frame === 'string') {
      this.stream.sendTo(this, {
        type: 'error',
        code: 'INVALID_MESSAGE',
        message: `Message ignored: ${frame}.`,
        details: { received: text === undefined ? '(binary)' : text.slice(0, 200) },
        timestamp: new Date(this.options.now()).toISOString(),
      });
      return;
    }
    if (frame.type === 'pong') {
      this.awaitingPong = false;
      this.missedPongs = 0;
      return;
    }
    this.stream.ack(frame.last_seq);
  }

  private dispose(): void {
    clearInterval(this.heartbeat);
    this.stream.remove(this);
  }
}
