import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';

/**
 * Where the gateway's (and the platform's) log lines go by default: readable lines on a terminal,
 * JSON lines anywhere else. Each case logs one entry from a process of its own, its stdout a
 * pseudo-terminal (Python's pty) or a pipe.
 */
const source = new URL('../src/log-filter.ts', import.meta.url).href;
const script = `
  import { GatewayLoggers, parseLogFilter } from ${JSON.stringify(source)};
  new GatewayLoggers(parseLogFilter('info')).for('gateway::run').info({ symbol: 'C:BTCUSD' }, 'run started');
`;
const node = [
  process.execPath,
  '--conditions=source',
  '--import',
  'tsx',
  '--input-type=module',
  '-e',
  script,
];

describe('default log stream', () => {
  it('writes one readable line per entry on a terminal', () => {
    const output = execFileSync('python3', ['-c', 'import pty, sys; pty.spawn(sys.argv[1:])', ...node], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = stripVTControlCharacters(output).split(/\r?\n/).filter(Boolean);
    assert.equal(lines.length, 1, output);
    assert.match(
      lines[0] as string,
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: run started \{"target":"gateway::run","symbol":"C:BTCUSD"\}$/,
    );
  });

  it('writes JSON lines when its output is not a terminal', () => {
    const output = execFileSync(node[0] as string, node.slice(1), { encoding: 'utf8' });
    const lines = output.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, output);
    const entry = JSON.parse(lines[0] as string);
    assert.equal(entry.level, 30);
    assert.equal(entry.msg, 'run started');
    assert.equal(entry.target, 'gateway::run');
    assert.equal(entry.symbol, 'C:BTCUSD');
  });
});
