import { Command, Option } from 'commander';
import { runStart } from './commands/start.ts';
import { runUsersCreate } from './commands/users.ts';

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
  .action(runStart);

const users = program.command('users').description('manage user accounts');
storageOptions(
  users
    .command('create')
    .description('create a user (embedded store: only while no server holds it)')
    .requiredOption('--email <email>', 'email address to sign in with')
    .requiredOption('--password <password>', 'password (at least 8 characters)'),
).action(runUsersCreate);

await program.parseAsync(process.argv);
