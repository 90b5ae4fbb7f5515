import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ExecutorError } from './executor.ts';

/**
 * What a strategy container may reach on the host. Docker's internal network already drops traffic
 * routed elsewhere (other hosts, other networks), but the host itself answers on the bridge's gateway
 * address at every port a service of the host listens on with `0.0.0.0`. These `INPUT` rules, matched by
 * the network's bridge interface, accept TCP to the scenario gateway's address and port and reject the
 * rest: the container reaches its gateway and nothing else.
 */
const run = promisify(execFile);

export interface FirewallHole {
  bridge: string;
  address: string;
  port: number;
}

const ruleSpecs = (hole: FirewallHole, tag: string): string[][] => [
  // Inserted in this order at position 1, so the accept ends up above the reject.
  ['INPUT', '-i', hole.bridge, '-m', 'comment', '--comment', tag, '-j', 'REJECT'],
  [
    'INPUT',
    '-i',
    hole.bridge,
    '-d',
    hole.address,
    '-p',
    'tcp',
    '--dport',
    String(hole.port),
    '-m',
    'comment',
    '--comment',
    tag,
    '-j',
    'ACCEPT',
  ],
];

export class ContainerFirewall {
  constructor(private readonly iptables = 'iptables') {}

  private async iptablesRun(args: string[]): Promise<void> {
    await run(this.iptables, ['-w', '5', ...args], { timeout: 15_000 });
  }

  /** Opens only `hole` to traffic arriving from `hole.bridge`; `close` with the same arguments undoes it. */
  async open(hole: FirewallHole, tag: string): Promise<void> {
    const done: string[][] = [];
    try {
      for (const spec of ruleSpecs(hole, tag)) {
        const [chain, ...rule] = spec as [string, ...string[]];
        await this.iptablesRun(['-I', chain, '1', ...rule]);
        done.push(spec);
      }
    } catch (error) {
      for (const spec of done) await this.iptablesRun(['-D', ...spec]).catch(() => undefined);
      const failed = error as { stderr?: string; message: string };
      throw new ExecutorError(
        `cannot restrict the strategy container's network with ${this.iptables}: ${(failed.stderr || failed.message).trim()} (the docker executor needs iptables and root on the Docker host)`,
        { cause: error },
      );
    }
  }

  async close(hole: FirewallHole, tag: string): Promise<void> {
    for (const spec of ruleSpecs(hole, tag)) await this.iptablesRun(['-D', ...spec]).catch(() => undefined);
  }
}
