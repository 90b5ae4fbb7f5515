import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Hosts of one test as Linux network namespaces on one private LAN: each host (`hs-<id>-<name>`) has
 * a veth into a switch namespace (`hs-<id>-lan`, a bridge with nothing else in it, so the machine's
 * firewall, e.g. Docker's FORWARD DROP, never sees the traffic), and the machine itself joins the LAN
 * by one more veth (`hs<id>-root`, address .1), which is where the test's PostgreSQL listens. Each host
 * has its own loopback; they reach each other only by their LAN addresses. Needs root and iproute2.
 * An owner file under /run/hindsight-cluster names the process that made the namespaces, so a later
 * run removes what a killed run left, and never what a live one uses.
 */
export interface Lan {
  id: string;
  /** The machine's own address on the LAN (PostgreSQL listens there). */
  rootAddress: string;
  /** The LAN as CIDR, e.g. 10.231.7.0/24. */
  cidr: string;
  /** Each host's namespace and LAN address. */
  hosts: Record<string, { namespace: string; address: string }>;
  dispose(): Promise<void>;
}

const run = promisify(execFile);
const OWNERS = '/run/hindsight-cluster';

const ip = (...args: string[]) => run('ip', args);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The processes in a namespace (`ip netns pids`), killed outright: they belong to a dead test. */
function killInside(namespace: string): void {
  try {
    const pids = execFileSync('ip', ['netns', 'pids', namespace], { encoding: 'utf8' }).split('\n');
    for (const pid of pids.map(Number).filter((p) => p > 0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  } catch {}
}

function namespacesOf(id: string): string[] {
  const listed = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  return listed
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(`hs-${id}-`));
}

/** Synchronous, so it also runs from an `exit` handler: kills, then deletes namespaces and veths. */
function removeLan(id: string): void {
  const namespaces = namespacesOf(id);
  for (const namespace of namespaces) killInside(namespace);
  for (const namespace of namespaces) {
    try {
      execFileSync('ip', ['netns', 'del', namespace], { stdio: 'ignore' });
    } catch {}
  }
  // The root side of the LAN's veth goes with its peer, but not always at once.
  try {
    execFileSync('ip', ['link', 'del', `hs${id}-root`], { stdio: 'ignore' });
  } catch {}
  rmSync(join(OWNERS, id), { force: true });
}

/** Removes the LANs of test processes that are gone (killed before their clean-up ran). */
export function removeLeftoverLans(): void {
  const ids = new Set<string>();
  if (existsSync(OWNERS)) for (const id of readdirSync(OWNERS)) ids.add(id);
  const listed = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  for (const match of listed.matchAll(/^hs-([0-9a-f]{6})-/gm)) ids.add(match[1] as string);
  for (const id of ids) {
    const owner = existsSync(join(OWNERS, id)) ? Number(readFileSync(join(OWNERS, id), 'utf8')) : 0;
    if (owner > 0 && isAlive(owner)) continue;
    removeLan(id);
  }
}

/** A /24 in 10.200-254.x.0 that no route of the machine covers yet. */
function freeSubnet(): string {
  const routes = execFileSync('ip', ['-4', 'route', 'show', 'table', 'all'], { encoding: 'utf8' });
  for (;;) {
    const subnet = `10.${200 + Math.floor(Math.random() * 55)}.${Math.floor(Math.random() * 256)}`;
    if (!routes.includes(`${subnet}.`)) return subnet;
  }
}

export async function createLan(hostNames: string[]): Promise<Lan> {
  if (process.getuid?.() !== 0) {
    throw new Error('the multi-host test builds network namespaces and veth pairs: run it as root');
  }
  removeLeftoverLans();
  const id = randomBytes(3).toString('hex');
  mkdirSync(OWNERS, { recursive: true });
  writeFileSync(join(OWNERS, id), String(process.pid));
  const cleanUp = () => removeLan(id);
  process.once('exit', cleanUp);
  const subnet = freeSubnet();
  const lan = `hs-${id}-lan`;
  const hosts: Lan['hosts'] = {};
  try {
    await ip('netns', 'add', lan);
    await ip('-n', lan, 'link', 'add', 'br0', 'type', 'bridge');
    await ip('-n', lan, 'link', 'set', 'br0', 'up');
    // Joins `end` (made in the root namespace) to the bridge, its peer staying where it is sent.
    const plug = async (end: string) => {
      await ip('link', 'set', end, 'netns', lan);
      await ip('-n', lan, 'link', 'set', end, 'master', 'br0');
      await ip('-n', lan, 'link', 'set', end, 'up');
    };
    const root = `hs${id}-root`;
    await ip('link', 'add', root, 'type', 'veth', 'peer', 'name', `hs${id}-rootp`);
    await plug(`hs${id}-rootp`);
    await ip('addr', 'add', `${subnet}.1/24`, 'dev', root);
    await ip('link', 'set', root, 'up');
    for (const [index, name] of hostNames.entries()) {
      const namespace = `hs-${id}-${name}`;
      const address = `${subnet}.${index + 2}`;
      // Interface names are at most 15 characters: hs<6 hex>-h<n>.
      const veth = `hs${id}-h${index}`;
      await ip('netns', 'add', namespace);
      await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', `${veth}p`);
      await plug(`${veth}p`);
      await ip('link', 'set', veth, 'netns', namespace);
      await ip('-n', namespace, 'addr', 'add', `${address}/24`, 'dev', veth);
      await ip('-n', namespace, 'link', 'set', veth, 'up');
      await ip('-n', namespace, 'link', 'set', 'lo', 'up');
      hosts[name] = { namespace, address };
    }
  } catch (error) {
    cleanUp();
    process.off('exit', cleanUp);
    throw error;
  }
  return {
    id,
    rootAddress: `${subnet}.1`,
    cidr: `${subnet}.0/24`,
    hosts,
    async dispose() {
      cleanUp();
      process.off('exit', cleanUp);
    },
  };
}
