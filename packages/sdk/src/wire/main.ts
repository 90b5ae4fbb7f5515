#!/usr/bin/env node
/**
 * `hindsight-strategy <module>`: runs a strategy module's default export over the wire, as the
 * platform starts it (docs/sdk.md, Running). What an SDK strategy's image runs.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StrategyDefinitionError } from '../errors.ts';
import { strategyOf } from '../strategy.ts';
import { run } from './runner.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: hindsight-strategy <strategy module>\n');
  process.exit(2);
}
try {
  run(strategyOf(await import(pathToFileURL(resolve(file)).href), file));
} catch (error) {
  process.stderr.write(
    `${error instanceof StrategyDefinitionError ? error.message : (error as Error).stack}\n`,
  );
  process.exit(2);
}
