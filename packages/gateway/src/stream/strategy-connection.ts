import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { parseClientBytes } from './client-frames.ts';
import type { EventStream, StreamClient } from './event-stream.ts';

/**
 * One strategy's WebSocket (trading-gateway.md: Events, Heartbeat, Acknowledgment):
 * - the server sends `{type: "ping", timestamp}` every `heartbeatMs` (15 s); a connection that lets
 *   two pings in a row go without a `pong` is closed (code 4000);
 * - client frames are `pong` and `event_ack` (`client-frames.ts`); anything else, or a frame that is
 *   not a JSON object of those shapes, gets an `error` event INVALID_MESSAGE and the connection stays
 *   open;
 * - events arrive already framed (`frames.ts`), what the stream queued in one round of I/O in one
 *   buffer, and go to the socket in one write, past `ws` (which would frame them again);
 * - the close frame (written by `ws` at once) follows everything the stream queued.
 */
export const HEARTBEAT_CLOSE_CODE = 4000;

export class StrategyConnection implements StreamClient {
  private awaitingPong = false;
  private missedPongs = 0;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    readonly socket: WebSocket,
    private readonly raw: Socket,
    private readonly stream: EventStream,
    private readonly options: { heartbeatMs: number; now: () => number; log: Logger },
  ) {
    this.heartbeat = setInterval(() => this.ping(), options.heartbeatMs);
    this.heartbeat.unref();
    raw.setNoDelay(true);
    socket.on('message', (data, isBinary) => this.onFrame(data as Buffer, isBinary));
    socket.on('close', () => this.dispose());
    socket.on('error', (error) => options.log.debug({ err: error }, 'websocket error'));
  }

  get open(): boolean {
    return this.socket.readyState === 1;
  }

  /** Writes frames past `ws`, which writes its own frames (pings, close) at once too: nothing reorders. */
  write(frames: Buffer): void {
    if (this.open) this.raw.write(frames);
  }

  /** Sends a last event and closes with `code` (1000 at the end of a run, 1001 on shutdown). */
  close(code: number, reason: string): void {
    this.stream.flush();
    if (this.open) this.socket.close(code, reason);
  }

  private ping(): void {
    if (!this.open) return;
    if (this.awaitingPong) {
      this.missedPongs++;
      if (this.missedPongs >= 2) {
        this.options.log.info('closing a strategy connection that missed two pongs');
        this.close(HEARTBEAT_CLOSE_CODE, 'missed two pongs');
        return;
      }
    }
    this.awaitingPong = true;
    this.socket.send(JSON.stringify({ type: 'ping', timestamp: new Date().toISOString() }));
  }

  private onFrame(data: Buffer, isBinary: boolean): void {
    const frame = isBinary ? 'binary frames are not accepted; send JSON text' : parseClientBytes(data);
    if (typeof frame === 'string') {
      this.stream.sendTo(this, {
        type: 'error',
        code: 'INVALID_MESSAGE',
        message: `Message ignored: ${frame}.`,
        details: { received: isBinary ? '(binary)' : data.toString('utf8', 0, 800).slice(0, 200) },
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
