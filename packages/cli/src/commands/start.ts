import { readSettings, startPlatform } from '@hindsight/platform';
import { onStopSignal } from '../stop-signals.ts';
import { failAndExit } from './fail.ts';

interface StartFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  databaseUrl?: string;
  secret?: string;
  adminEmail?: string;
  adminPassword?: string;
}

export async function runStart(flags: StartFlags): Promise<void> {
  try {
    const settings = readSettings(process.env, flags);
    const platform = await startPlatform(settings, {
      logLevel: process.env.HINDSIGHT_LOG_LEVEL ?? 'info',
    });
    // Before the banner: whoever reads it may signal at once. Stops the worker's runs (their
    // strategies and gateways), then the API and the store.
    onStopSignal(async (signal) => {
      platform.app.log.info({ signal }, 'shutting down');
      await platform.close();
    });
    const storage = settings.databaseUrl
      ? `PostgreSQL at ${new URL(settings.databaseUrl).host}`
      : `embedded store in ${settings.dataDir}`;
    const lines = [
      `Hindsight ${platform.ctx.version} is running at ${platform.url} (${storage}).`,
      `  Web app:   ${platform.url}/v1/`,
    ];
    const signIn = platform.signIn;
    if (signIn?.demo && signIn.password) {
      const user = await platform.ctx.users.findByEmail(signIn.email);
      const key = user
        ? await platform.ctx.apiKeys.create(user.id, `npm start ${new Date().toISOString()}`)
        : undefined;
      lines.push(
        `  Sign in:   ${signIn.email} / ${signIn.password}   (demo user: the web app, or POST /v1/auth/login)`,
      );
      if (key) {
        lines.push(`  API key:   ${key.key}   (fresh for this start; shown once)`);
        lines.push(`  Try:       curl -H "X-API-Key: ${key.key}" ${platform.url}/v1/strategies`);
      }
    } else if (signIn) {
      lines.push(
        `  Sign in:   ${signIn.email} with HINDSIGHT_ADMIN_PASSWORD (POST /v1/auth/login), then create API keys.`,
      );
    } else {
      lines.push('  Create a user with: npx hindsight users create --email you@example.com --password ...');
    }
    lines.push(`  API docs:  ${platform.url}/v1/openapi.json`);
    lines.push(
      settings.runner.workers > 0
        ? `  Scenarios: ${settings.runner.workers} at once here (executor ${settings.runner.executor}: ${platform.worker?.isolation}; docs/security.md)`
        : '  Scenarios: no worker in this process (HINDSIGHT_WORKERS=0); run `npx hindsight worker`',
    );
    console.log(lines.join('\n'));
  } catch (error) {
    failAndExit(error);
  }
}
