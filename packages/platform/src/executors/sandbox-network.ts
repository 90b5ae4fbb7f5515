import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { ExecutorError } from './executor.ts';

/**
 * The network a sandboxed strategy lives in: a network namespace of its own, with nothing in it but its
 * loopback, where the one address it can reach is its gateway's: `127.0.0.1:SANDBOX_GATEWAY_PORT`.
 *
 * A holder process makes the namespace (bubblewrap `--unshare-net`, as the sandbox's user: its own user
 * namespace too, unless that user is root), listens on that address inside it and hands the listening
 * socket to the worker over Node's IPC channel (the socket stays in the namespace it was made in). The
 * worker accepts the strategy's connections on it and gives them to the gateway's HTTP server: no
 * process forwards bytes in between, so a bar over the sandbox's loopback costs what it costs over the
 * host's. A sandbox is started inside the holder's namespaces (`nsenter`, util-linux).
 *
 * Making one costs a Node.js start (the holder), about as much CPU as the rest of a run's start, so
 * a namespace serves one run after another (`SandboxNetworks`): once a run's sandbox is gone, nothing of
 * it is left in the namespace (its processes and their sockets went with its PID namespace, and it
 * never had the rights to change the namespace itself), and the next run may use it.
 */
export const SANDBOX_GATEWAY_PORT = 8765;

const HOLDER = `
const server = require('node:net').createServer();
// The holder lives as long as its namespace serves runs: until the worker lets go of the channel.
process.on('disconnect', () => process.exit(0));
server.on('error', (error) => process.send({ error: error.message }, () => process.disconnect()));
// Once sent, its own copy of the socket is closed: else it would take some of the connections.
server.listen({ host: '127.0.0.1', port: ${SANDBOX_GATEWAY_PORT} }, () =>
  process.send({ pid: process.pid }, server, () => server.close()));
`;

const HOLDER_TIMEOUT_MS = 30_000;

export function findNsenter(): string | undefined {
  return ['/usr/bin/nsenter', '/bin/nsenter', '/usr/sbin/nsenter'].find((path) => existsSync(path));
}

export interface NetworkOptions {
  bwrap: string;
  nsenter: string;
  /** The user sandboxes run as (undefined: the worker's). The holder runs as that user too. */
  user?: { uid: number; gid: number };
}

export class SandboxNetwork {
  private constructor(
    /** Listening on the gateway's address inside the namespace (never keeps the worker alive). */
    readonly listener: Server,
    private readonly holder: ChildProcess,
    /** The holder's PID: a process in the namespaces, through which sandboxes enter them. */
    private readonly holderPid: number,
    private readonly options: NetworkOptions,
  ) {}

  /** Makes a namespace with its listener; rejects with an ExecutorError saying why it cannot. */
  static create(options: NetworkOptions): Promise<SandboxNetwork> {
    const holder = spawn(
      options.bwrap,
      [
        '--unshare-net',
        '--die-with-parent',
        // The holder is the worker's own code: it sees the host's files, read-only. No devpts (bwrap's
        // --dev), for which bwrap would nest a second user namespace that could not be entered.
        '--ro-bind',
        '/',
        '/',
        '--dev-bind',
        '/dev',
        '/dev',
        '--',
        process.execPath,
        // A few lines that never get hot: without the JIT, Node starts in half the time.
        '--jitless',
        '-e',
        HOLDER,
      ],
      {
        // Nothing of the worker's environment (its secrets, NODE_OPTIONS) reaches the holder.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        ...options.user,
      },
    );
    let stderr = '';
    holder.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    return new Promise<SandboxNetwork>((resolve, reject) => {
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        holder.kill('SIGKILL');
        reject(new ExecutorError(`cannot make the sandbox's network: ${why}`));
      };
      const timer = setTimeout(
        () => fail(`no answer within ${HOLDER_TIMEOUT_MS / 1000} s`),
        HOLDER_TIMEOUT_MS,
      );
      holder.on('message', (message: { pid?: number; error?: string }, handle: unknown) => {
        if (settled) {
          (handle as Server | undefined)?.close();
          return;
        }
        if (typeof message?.pid !== 'number' || !handle) {
          fail(message?.error ?? JSON.stringify(message));
          return;
        }
        settled = true;
        clearTimeout(timer);
        const listener = handle as Server;
        // It serves runs while there are; it never keeps the worker's process alive by itself.
        listener.unref();
        holder.unref();
        holder.channel?.unref();
        const network = new SandboxNetwork(listener, holder, message.pid, options);
        network.detach();
        resolve(network);
      });
      holder.on('error', (error) => fail(error.message));
      // The channel closes after every message sent on it has arrived: without the socket by then,
      // the holder could not make it (bubblewrap refused, node failed to start).
      holder.on('disconnect', () => fail(stderr.trim() || `${options.bwrap} ended`));
    });
  }

  /**
   * The command line that runs `argv` inside the namespace (and, unless the sandbox's user is root, the
   * holder's user namespace, whose owner that user is: the rights on the network namespace come with it).
   */
  enter(argv: readonly string[]): string[] {
    const uid = this.options.user?.uid ?? process.getuid?.();
    const namespaces = uid === 0 ? ['--net'] : ['--user', '--net', '--preserve-credentials'];
    return [this.options.nsenter, `--target=${this.holderPid}`, ...namespaces, '--', ...argv];
  }

  /** Whether the holder is still there (a sandbox can enter the namespace only through it). */
  get ready(): boolean {
    return this.holder.connected && this.holder.exitCode === null && this.holder.signalCode === null;
  }

  /** Connections made to the gateway's address go to `accept` (a run's gateway) until `detach`. */
  attach(accept: (socket: Socket) => void): void {
    this.listener.removeAllListeners('connection');
    this.listener.on('connection', accept);
  }

  /** Between runs, a connection (there can be none: no sandbox is in the namespace) is refused. */
  detach(): void {
    this.listener.removeAllListeners('connection');
    this.listener.on('connection', (socket: Socket) => socket.destroy());
  }

  /** Closes the listener and ends the holder: the namespace goes with the last process in it. */
  close(): void {
    if (this.holder.connected) this.holder.disconnect();
    this.listener.close();
  }
}

/** Namespaces a run takes and gives back, so that a Node.js start is paid once per namespace, not per run. */
export class SandboxNetworks {
  private readonly idle: SandboxNetwork[] = [];
  private readonly all = new Set<SandboxNetwork>();
  private closed = false;

  constructor(
    private readonly options: NetworkOptions,
    /** Namespaces kept between runs, at most (one per run at once is enough). */
    private readonly maxIdle = 8,
  ) {}

  /** An idle namespace whose holder is still there, or a new one. */
  async take(): Promise<SandboxNetwork> {
    if (this.closed) throw new ExecutorError('the executor is closed');
    for (let network = this.idle.pop(); network; network = this.idle.pop()) {
      if (network.ready) return network;
      this.drop(network);
    }
    const network = await SandboxNetwork.create(this.options);
    if (this.closed) {
      network.close();
      throw new ExecutorError('the executor is closed');
    }
    this.all.add(network);
    return network;
  }

  /**
   * Gives a namespace back after its run. `reusable` only when the run's sandbox is wholly gone (or was
   * never started); otherwise the namespace is closed and goes with whatever is left in it.
   */
  give(network: SandboxNetwork, reusable: boolean): void {
    network.detach();
    if (reusable && !this.closed && network.ready && this.idle.length < this.maxIdle) this.idle.push(network);
    else this.drop(network);
  }

  private drop(network: SandboxNetwork): void {
    this.all.delete(network);
    network.close();
  }

  close(): void {
    this.closed = true;
    this.idle.length = 0;
    for (const network of this.all) network.close();
    this.all.clear();
  }
}
