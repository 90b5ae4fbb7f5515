import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:net';
import { ExecutorError } from './executor.ts';

/**
 * The one address a sandboxed strategy can reach: its gateway, at `127.0.0.1:<port>` of the sandbox's
 * own network namespace, where nothing else listens and from which nothing else is routed.
 *
 * A short-lived helper process enters the sandbox's network namespace (`nsenter`, util-linux), opens a
 * listening socket there and hands it to the worker over Node's IPC channel (the socket is passed as a
 * file descriptor, and stays in the namespace it was made in). The worker then accepts the strategy's
 * connections on it directly and gives them to the gateway's HTTP server: no process forwards bytes in
 * between, so a bar over the sandbox's loopback costs what it costs over the host's.
 */
const LISTENER = `
const server = require('node:net').createServer();
// The helper lives until the worker has the socket and lets go of the channel.
process.on('disconnect', () => process.exit(0));
server.on('error', (error) => process.send({ error: error.message }, () => process.disconnect()));
server.listen({ host: '127.0.0.1', port: Number(process.argv[1]) }, () => process.send('listening', server));
`;

const HELPER_TIMEOUT_MS = 15_000;

export function findNsenter(): string | undefined {
  return ['/usr/bin/nsenter', '/bin/nsenter', '/usr/sbin/nsenter'].find((path) => existsSync(path));
}

export interface SandboxListenOptions {
  nsenter: string;
  /** The host PID of a process in the sandbox's namespaces (bubblewrap's init). */
  pid: number;
  port: number;
  /**
   * The user bubblewrap runs as (undefined: the worker's). The helper runs as that user too and enters
   * the user namespace bubblewrap made for it before its network namespace: as the namespace's owner it
   * has the rights it needs there, and no more, whether or not the worker is root. Only a sandbox run
   * as root itself has no user namespace of its own, and is entered directly.
   */
  user?: { uid: number; gid: number };
}

/** A server listening on `127.0.0.1:<port>` inside the sandbox's network namespace. */
export function listenInSandbox(options: SandboxListenOptions): Promise<Server> {
  const uid = options.user?.uid ?? process.getuid?.();
  const args = [`--target=${options.pid}`];
  args.push(...(uid === 0 ? ['--net'] : ['--user', '--net', '--preserve-credentials']));
  args.push('--', process.execPath, '-e', LISTENER, String(options.port));
  const helper = spawn(options.nsenter, args, {
    // Nothing of the worker's environment (its secrets, NODE_OPTIONS) reaches the helper.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    ...options.user,
  });
  let stderr = '';
  helper.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise<Server>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      helper.kill('SIGKILL');
      reject(new ExecutorError(`cannot open the gateway's address inside the sandbox: ${why}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${HELPER_TIMEOUT_MS / 1000} s`), HELPER_TIMEOUT_MS);
    helper.on('message', (message: unknown, handle: unknown) => {
      if (settled) {
        // Too late (the wait timed out): a socket nobody will use must not keep the worker alive.
        (handle as Server | undefined)?.close();
        return;
      }
      if (message !== 'listening' || !handle) {
        fail((message as { error?: string }).error ?? JSON.stringify(message));
        return;
      }
      settled = true;
      clearTimeout(timer);
      // It serves while its run lasts; it never keeps the worker's process alive by itself.
      (handle as Server).unref();
      resolve(handle as Server);
      helper.disconnect();
    });
    helper.on('error', (error) => fail(error.message));
    // The channel closes after every message sent on it has arrived: without the socket by then, the
    // helper could not make it (nsenter refused, node failed to start).
    helper.on('disconnect', () =>
      fail(`${options.nsenter} ended without it: ${stderr.trim() || 'no message'}`),
    );
  });
}
