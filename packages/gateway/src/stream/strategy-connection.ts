import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { parseClientBytes, type RequestFrame, requestIdOf } from './client-frames.ts';
import type { EventStream, StreamClient } from './event-stream.ts';
import { responseText, type SocketRequests } from './socket-requests.ts';

/**
 * One strategy's WebSocket (trading-gateway.md: Events, Heartbeat, Acknowledgment):
 * - the server sends `{type: "ping", timestamp}` every `heartbeatMs` (15 s); a connection that lets
 *   two pings in a row go without a `pong` is closed (code 4000);
 * - client frames are `pong`, `event_ack` and `request` (`client-frames.ts`); anything else, or a
 *   frame that is not a JSON object of those shapes, gets an `error` event INVALID_MESSAGE (with the
 *   frame's `request_id` when it has one) and the connection stays open;
 * - frames take effect in the order they were sent: while a `request` runs (`socket-requests.ts`),
 *   the frames after it wait, so an order sent before an `event_ack` is placed before time moves,
 *   as it would be if the strategy had waited for its answer;
 * - events arrive already framed (`frames.ts`), what the stream queued in one round of I/O in one
 *   buffer, and go to the socket in one write, past `ws` (which would frame them again);
 * - the close frame (written by `ws` at once) follows everything the stream queued.
 */
export const HEARTBEAT_CLOSE_CODE = 4000;

type WaitingFrame = { data: Buffer; isBinary: boolean };

/**
 * Frames held behind a running request before the connection stops reading: a client that
 * pipelines faster than requests run is slowed by TCP backpressure instead of growing this queue.
 */
export const MAX_WAITING_FRAMES = 1024;

export class StrategyConnection implements StreamClient {
  private awaitingPong = false;
  private missedPongs = 0;
  private readonly heartbeat: NodeJS.Timeout;
  /** Frames that arrived while a request ran, in order; undefined while none runs. */
  private waiting: WaitingFrame[] | undefined;

  constructor(
    readonly socket: WebSocket,
    private readonly raw: Socket,
    private readonly stream: EventStream,
    private readonly options: {
      heartbeatMs: number;
      now: () => number;
      log: Logger;
      requests: SocketRequests;
    },
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
    if (!this.waiting) {
      this.handle(data, isBinary);
      return;
    }
    this.waiting.push({ data, isBinary });
    if (this.waiting.length >= MAX_WAITING_FRAMES && !this.socket.isPaused) this.socket.pause();
  }

  private handle(data: Buffer, isBinary: boolean): void {
    const frame = isBinary ? 'binary frames are not accepted; send JSON text' : parseClientBytes(data);
    if (typeof frame === 'string') {
      const requestId = isBinary ? undefined : requestIdOf(data.toString());
      this.stream.sendTo(this, {
        type: 'error',
        code: 'INVALID_MESSAGE',
        message: `Message ignored: ${frame}.`,
        details: {
          received: isBinary ? '(binary)' : data.toString('utf8', 0, 800).slice(0, 200),
          ...(requestId !== undefined && { request_id: requestId }),
        },
        timestamp: this.timestamp(),
      });
      return;
    }
    if (frame.type === 'pong') {
      this.awaitingPong = false;
      this.missedPongs = 0;
      return;
    }
    if (frame.type === 'request') {
      this.waiting = [];
      this.request(frame);
      return;
    }
    this.stream.ack(frame.last_seq);
  }

  /**
   * Runs a request, queues its response (written at the end of this round of I/O with whatever else
   * is queued: pipelined requests answered in one round share a write), then handles the frames
   * that waited for it.
   */
  private request(frame: RequestFrame): void {
    this.options.requests.run(frame).then(
      (head) => this.respond((seq) => responseText(head, this.timestamp(), seq)),
      (error: unknown) => {
        // Every operation error is answered as a response frame; this is a fault in the gateway.
        this.options.log.error({ err: error }, 'a request over the socket failed');
        this.respond((seq) =>
          JSON.stringify({
            type: 'error',
            code: 'INTERNAL_ERROR',
            message: 'The request could not be run; it may not have taken effect.',
            details: { request_id: frame.request_id },
            timestamp: this.timestamp(),
            seq,
          }),
        );
      },
    );
  }

  private respond(textOf: (seq: number) => string): void {
    this.stream.sendTextTo(this, textOf);
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    let next = 0;
    while (next < waiting.length) {
      const frame = waiting[next++] as WaitingFrame;
      this.handle(frame.data, frame.isBinary);
      const behind = this.waiting as WaitingFrame[] | undefined; // set again by another request
      if (behind) {
        for (let i = next; i < waiting.length; i++) behind.push(waiting[i] as WaitingFrame);
        break;
      }
    }
    const held = (this.waiting as WaitingFrame[] | undefined)?.length ?? 0;
    if (this.socket.isPaused && held < MAX_WAITING_FRAMES && this.open) this.socket.resume();
  }

  private timestamp(): string {
    return new Date(this.options.now()).toISOString();
  }

  private dispose(): void {
    clearInterval(this.heartbeat);
    this.stream.remove(this);
  }
}
