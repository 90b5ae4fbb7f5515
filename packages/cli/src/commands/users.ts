import { isEmail, MIN_PASSWORD_LENGTH, openPlatform, readSettings } from '@hindsight/platform';
import { failAndExit } from './fail.ts';

export async function runUsersCreate(flags: {
  email: string;
  password: string;
  dataDir?: string;
  databaseUrl?: string;
}): Promise<void> {
  if (!isEmail(flags.email)) {
    console.error(`hindsight: --email: "${flags.email}" is not an email address.`);
    process.exit(2);
  }
  if (flags.password.length < MIN_PASSWORD_LENGTH) {
    console.error(`hindsight: --password: must be at least ${MIN_PASSWORD_LENGTH} characters.`);
    process.exit(2);
  }
  try {
    const { database, ctx } = await openPlatform(readSettings(process.env, flags));
    try {
      const user = await ctx.users.create(flags.email, flags.password);
      if (!user) {
        console.error(`hindsight: a user with email ${flags.email} already exists.`);
        process.exitCode = 1;
        return;
      }
      console.log(`Created user ${user.email} (${user.id}).`);
    } finally {
      await database.close();
    }
  } catch (error) {
    failAndExit(error);
  }
}
