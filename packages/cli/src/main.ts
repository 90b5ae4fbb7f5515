import { Command, Option } from 'commander';
import { followNpm } from './follow-npm.ts';

/**
 * The `hindsight` command line (bin/hindsight.js runs this file): every command with its flags. A
 * command's code is imported only when that command runs, so `--help` and `--version` load none of
 * the platform, gateway or importers, and each command loads only the packages it uses.
 */

// When npm started it, the process follows npm (follow-npm.ts).
followNpm();

/** An action that imports its command's module when the command runs. */
const lazy =
  <Args extends unknown[]>(load: () => Promise<(...args: Args) => Promise<void>>) =>
  async (...args: Args) =>
    (await load())(...args);

const program = new Command()
  .name('hindsight')
  .description('Hindsight: self-hostable backtesting platform')
  .version(process.env.npm_package_version ?? '0.1.0')
  .showHelpAfterError();

/** Flags mirror the environment variables; a flag wins over its variable. */
const storageOptions = (command: Command) =>
  command
    .addOption(
      new Option('--data-dir <dir>', 'data directory (embedded store, secret)').env('HINDSIGHT_DATA_DIR'),
    )
    .addOption(
      new Option('--database-url <url>', 'PostgreSQL server instead of the embedded store').env(
        'DATABASE_URL',
      ),
    );

storageOptions(
  program
    .command('start')
    .description('run the platform: management API on HINDSIGHT_HOST:HINDSIGHT_PORT')
    .addOption(new Option('--host <host>', 'bind address (default 127.0.0.1)').env('HINDSIGHT_HOST'))
    .addOption(new Option('--port <port>', 'listen port (default 8000)').env('HINDSIGHT_PORT')),
)
  .addOption(
    new Option('--secret <secret>', 'signing secret for sessions (default: generated)').env(
      'HINDSIGHT_SECRET',
    ),
  )
  .addOption(new Option('--admin-email <email>', 'ensure this user exists').env('HINDSIGHT_ADMIN_EMAIL'))
  .addOption(
    new Option('--admin-password <password>', "the admin user's password").env('HINDSIGHT_ADMIN_PASSWORD'),
  )
  .action(lazy(async () => (await import('./commands/start.ts')).runStart));

program
  .command('gateway')
  .description(
    'run the trading gateway (configured by GATEWAY_* variables; GATEWAY_PROVIDER=simulation with ' +
      'HINDSIGHT_SCENARIO=scenario.json replays a backtest for a strategy connecting over REST and WebSocket)',
  )
  .action(lazy(async () => (await import('./commands/gateway.ts')).runGateway));

storageOptions(
  program
    .command('worker')
    .description("run a scenario worker alone, sharing the platform's PostgreSQL (docs/scenarios.md)"),
)
  .addOption(
    new Option('--secret <secret>', "the platform's signing secret (to pull images)").env('HINDSIGHT_SECRET'),
  )
  .addOption(
    new Option('--registry-url <url>', "the platform's base URL (default http://127.0.0.1:8000)").env(
      'HINDSIGHT_REGISTRY_URL',
    ),
  )
  .addOption(new Option('--executor <kind>', 'local or docker (default local)').env('HINDSIGHT_EXECUTOR'))
  .addOption(new Option('--concurrency <n>', 'scenarios run at once (default 2)').env('HINDSIGHT_WORKERS'))
  .action(lazy(async () => (await import('./commands/worker.ts')).runWorkerCommand));

const users = program.command('users').description('manage user accounts');
storageOptions(
  users
    .command('create')
    .description('create a user (embedded store: only while no server holds it)')
    .requiredOption('--email <email>', 'email address to sign in with')
    .requiredOption('--password <password>', 'password (at least 8 characters)'),
).action(lazy(async () => (await import('./commands/users.ts')).runUsersCreate));

const collect = (value: string, previous: string[] = []) => [...previous, value];
const versions = program.command('versions').description('strategy versions (container images)');
versions
  .command('push')
  .description(
    'build a one-layer image of a folder (no Docker needed) and push it as a new version, or into a version awaiting its image',
  )
  .argument('<dir>', 'the strategy folder; it becomes the working directory /app in the image')
  .option('--strategy <id>', 'the strategy to add a new version to (needs an API key)')
  .option('--repository <url>', "an existing version's repositoryUrl (<host>/v/<versionId>), with --token")
  .option('--token <accessToken>', 'the accessToken the version was created with (instead of an API key)')
  .option('--cmd <command>', 'the entrypoint, e.g. "python3 main.py" (split like a shell, no shell runs)')
  .option(
    '--bundle <module>',
    'an SDK strategy in the folder: strategy.ts is bundled with its dependencies and run with node; strategy.py gets the hindsight package beside it and runs with python3',
  )
  .option('--env <KEY=VALUE>', 'image environment variable (repeatable)', collect)
  .option('--workdir <path>', 'where the folder goes in the image (default /app)')
  .option('--label <label>', 'label of the new version')
  .option('--description <text>', 'description of the new version')
  .addOption(new Option('--url <url>', 'the platform (default http://127.0.0.1:8000)').env('HINDSIGHT_URL'))
  .addOption(new Option('--api-key <key>', "an API key of the strategy's owner").env('HINDSIGHT_API_KEY'))
  .action(lazy(async () => (await import('./commands/versions-push.ts')).runVersionsPush));

program
  .command('backtest')
  .description('backtest an SDK strategy: in this process by default, a report at the end (docs/sdk.md)')
  .argument('<strategy>', 'the strategy module (.ts or .js), its default export made with defineStrategy')
  .requiredOption(
    '--scenario <file>',
    'the scenario: an inline configuration (JSON), as `hindsight gateway` takes',
  )
  .option('--param <name=value>', 'a strategy parameter (repeatable)', collect)
  .option('--grid <name=v1,v2,...>', 'sweep a parameter over values, on every core (repeatable)', collect)
  .option('--sort <metric>', 'sweep table order, best first (default sharpeRatio)')
  .option('--workers <n>', 'sweep threads (default: one per core)')
  .option('--wire', 'run through a gateway on a loopback port, the strategy in a child process')
  .option('--out <dir>', 'where the result files and the report go (default ./results/<time>)')
  .option('--no-report', 'skip the HTML report')
  .addOption(
    new Option('--data-dir <dir>', 'data directory (market data; default .hindsight)').env(
      'HINDSIGHT_DATA_DIR',
    ),
  )
  .action(lazy(async () => (await import('./commands/backtest/backtest-command.ts')).runBacktest));

program
  .command('check')
  .description(
    'run a strategy against a scripted gateway and report protocol faults: acks, pong, decimals, retries (docs/check.md)',
  )
  .argument('<strategy>', 'an SDK strategy module (.ts or .js), or with --cmd the strategy folder')
  .option('--cmd <command>', 'run this in the folder, any language, e.g. "python3 main.py"')
  .option('--scenario <file>', 'an inline scenario configuration (JSON); default: a day of the BTC sample')
  .option('--timeout <seconds>', 'stop a run that has not ended by then (default 300)')
  .option('--no-drop', 'never cut the socket (for a strategy that does not resume)')
  .option('--json', 'print the report as JSON')
  .option('--verbose', "pass the strategy's output through to stderr")
  .addOption(
    new Option('--data-dir <dir>', 'data directory (market data; default .hindsight)').env(
      'HINDSIGHT_DATA_DIR',
    ),
  )
  .action(lazy(async () => (await import('./commands/check/check-command.ts')).runCheckCommand));

const data = program.command('data').description('manage stored market data');
const importFormat = new Option('--format <format>', 'file format').makeOptionMandatory();
// The list of formats lives with the importers, which only `data import` loads (its --help too).
data.hook('preSubcommand', async (_data, command) => {
  if (command.name() !== 'import') return;
  const { IMPORT_FORMATS } = await import('@hindsight/marketdata/import');
  importFormat.description = `file format: ${IMPORT_FORMATS.join(', ')}`;
});
data
  .command('import')
  .description('import bar or tick files (plain, .gz, .zip or .zst) into the market-data store')
  .argument('<files...>', 'files to import; all are parsed before anything is written')
  .addOption(importFormat)
  .requiredOption('--symbol <symbol>', 'catalog symbol the data belongs to, e.g. F:EURUSD')
  .option('--tz <zone>', 'time zone of the timestamps (csv): UTC, +02:00 or an IANA zone')
  .option(
    '--columns <mapping>',
    'column mapping (csv), e.g. time=Date,open=Open,high=High,low=Low,close=Close',
  )
  .option(
    '--time-format <format>',
    'csv time format: auto, iso, unix-s, unix-ms, unix-us, unix-ns or a pattern',
  )
  .option('--delimiter <char>', 'csv field delimiter (default: detected)')
  .option('--no-header', 'csv file has no header line')
  .option('--bar-time <start|end>', 'whether timestamps mark bar starts or ends (csv)')
  .option('--side <bid|ask>', 'side of a one-sided bar file (dukascopy)')
  .option('--keep-empty-bars', 'keep zero-volume filler candles (dukascopy)')
  .addOption(new Option('--data-dir <dir>', 'data directory').env('HINDSIGHT_DATA_DIR'))
  .action(lazy(async () => (await import('./commands/data-import.ts')).runDataImport));

data
  .command('export')
  .description('export stored base bars of one instrument as Parquet (exact DECIMAL prices)')
  .requiredOption('--symbol <symbol>', 'catalog symbol, e.g. C:BTCUSD')
  .requiredOption('--out <file>', 'Parquet file to write')
  .option('--start <time>', 'inclusive start, ISO-8601 (default: the first stored bar)')
  .option('--end <time>', 'exclusive end, ISO-8601 (default: after the last stored bar)')
  .addOption(new Option('--data-dir <dir>', 'data directory').env('HINDSIGHT_DATA_DIR'))
  .action(lazy(async () => (await import('./commands/data-export.ts')).runDataExport));

await program.parseAsync(process.argv);
