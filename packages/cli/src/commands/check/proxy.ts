import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
} from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * A loopback proxy between the strategy and its gateway, for `hindsight check`: REST over HTTP and
 * the `/v1/ws` socket both pass through it, so every byte the strategy sends and receives can be
 * seen (and, where the script says so, answered or rewritten) without touching the gateway. This
 * file is transport only; what to observe and inject is the hooks' business (`script.ts`).
 */

export interface HttpCall {
  method: string;
  /** The path with its query string, as the strategy sent it. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/** What to do with a call: forward it (with another body, when given) or answer it here. */
export type CallPlan =
  | { kind: 'forward'; rawBody?: string }
  | { kind: 'answer'; status: number; body: Record<string, unknown> };

export interface ProxyHooks {
  /** An HTTP request: how to handle it, and `answered` with what the strategy got. */
  httpCall(call: HttpCall): { plan: CallPlan; answered(status: number, rawBody: string): void };
  /** A socket upgrade (before the gateway sees it). */
  upgrade(path: string, headers: IncomingHttpHeaders): void;
  /** The socket is open on both sides. */
  opened(socket: ProxiedSocket): void;
  /** A frame from the strategy: the text to forward, or undefined to keep it here. */
  clientFrame(socket: ProxiedSocket, text: string): string | undefined;
  /** A frame from the gateway: the text to deliver, or undefined to keep it here. */
  serverFrame(socket: ProxiedSocket, text: string): string | undefined;
  /** A frame the strategy was just sent (after any hold). */
  delivered(socket: ProxiedSocket, text: string): void;
  closed(socket: ProxiedSocket): void;
}

type Outgoing = { text: string } | { close: number; reason: string };

/** One strategy connection, both halves; frames to the strategy can be held back and released. */
export class ProxiedSocket {
  private held: Outgoing[] | undefined;
  private finished = false;

  constructor(
    readonly id: number,
    readonly path: string,
    private readonly client: WebSocket,
    private readonly upstream: WebSocket,
    private readonly hooks: ProxyHooks,
  ) {}

  /** Sends a frame of the checker's own to the strategy (a ping), ahead of anything held. */
  inject(text: string): void {
    if (this.client.readyState === WebSocket.OPEN) this.client.send(text);
  }

  /** Holds frames to the strategy until `release` (the gateway's stream waits behind them). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const item of held) this.deliver(item);
  }

  /** Drops the connection as a network failure would: no close frame either way. */
  drop(): void {
    this.finished = true;
    this.client.terminate();
    this.upstream.terminate();
  }

  deliver(item: Outgoing): void {
    if (this.held) {
      this.held.push(item);
      return;
    }
    if (this.client.readyState !== WebSocket.OPEN) return;
    if ('text' in item) {
      this.client.send(item.text);
      this.hooks.delivered(this, item.text);
    } else {
      closeLike(this.client, item.close, item.reason);
    }
  }

  /** Either half closed: the other follows, once (a close from the gateway after what is held). */
  end(side: 'client' | 'upstream', code: number, reason: string): void {
    if (this.finished) return;
    this.finished = true;
    if (side === 'upstream') this.deliver({ close: code, reason });
    else closeLike(this.upstream, code, reason);
    this.hooks.closed(this);
  }
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

// Headers that describe one hop of HTTP, not the request.
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length']);

export async function startProxy(gatewayUrl: string, hooks: ProxyHooks): Promise<RunningProxy> {
  const target = new URL(gatewayUrl);
  const agent = new Agent({ keepAlive: true });
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  let nextSocket = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call: HttpCall = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
      };
      const { plan, answered } = hooks.httpCall(call);
      if (plan.kind === 'answer') {
        const text = JSON.stringify(plan.body);
        res.writeHead(plan.status, { 'content-type': 'application/json; charset=utf-8' }).end(text);
        answered(plan.status, text);
        return;
      }
      const body = plan.rawBody ?? call.rawBody;
      const headers = passHeaders(req.headers);
      if (body.length > 0) headers['content-length'] = String(Buffer.byteLength(body));
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: call.method, path: call.path, headers, agent },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const bytes = Buffer.concat(parts);
            const out = passHeaders(answer.headers);
            out['content-length'] = String(bytes.length);
            res.writeHead(answer.statusCode ?? 502, out).end(bytes);
            answered(answer.statusCode ?? 502, bytes.toString('utf8'));
          });
        },
      );
      upstream.on('error', (error) => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'PROVIDER_ERROR', message: `checker proxy: ${error.message}` }));
      });
      upstream.end(body);
    });
  });

  server.on('upgrade', (req, raw: Duplex, head: Buffer) => {
    const path = req.url ?? '/';
    hooks.upgrade(path, req.headers);
    // The gateway judges the upgrade (key, resume_from_seq); its refusal goes back as it was.
    const auth: Record<string, string> = {};
    for (const name of ['authorization', 'x-api-key']) {
      const value = req.headers[name];
      if (typeof value === 'string') auth[name] = value;
    }
    const upstream = new WebSocket(`ws://${target.host}${path}`, { headers: auth });
    upstream.on('unexpected-response', (_request, answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => parts.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(parts);
        raw.end(
          `HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\ncontent-type: application/json\r\n` +
            `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body.toString('utf8')}`,
        );
      });
    });
    upstream.once('error', () => {
      if (upstream.readyState !== WebSocket.OPEN) raw.destroy();
    });
    upstream.once('open', () => {
      wss.handleUpgrade(req, raw, head, (client) => {
        const socket = new ProxiedSocket(++nextSocket, path, client, upstream, hooks);
        sockets.add(client);
        sockets.add(upstream);
        upstream.on('message', (data) => {
          const text = hooks.serverFrame(socket, data.toString());
          if (text !== undefined) socket.deliver({ text });
        });
        client.on('message', (data) => {
          const text = hooks.clientFrame(socket, data.toString());
          if (text !== undefined && upstream.readyState === WebSocket.OPEN) upstream.send(text);
        });
        upstream.on('close', (code, reason) => socket.end('upstream', code, reason.toString()));
        client.on('close', (code, reason) => socket.end('client', code, reason.toString()));
        client.on('error', () => undefined);
        upstream.on('error', () => undefined);
        hooks.opened(socket);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.terminate();
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Closes with the code the other half got; one that cannot be sent (1005, 1006) is a cut. */
function closeLike(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    socket.terminate();
  }
}

function passHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
  }
  return out;
}
