import { readFileSync } from 'node:fs';

/**
 * Under npm (`npx hindsight ...`, `npm run ...`; pnpm and yarn set the same variable) the command
 * runs in a shell (`sh -c`) that npm starts. npm passes SIGTERM and SIGINT to that shell only, which
 * dies of them without passing them on, so this process would keep running, reparented, holding its
 * port; a killed npm leaves the shell waiting and this process running too. So a process started
 * under npm watches the processes that launched it and stops as on SIGTERM once one is gone: its
 * parent (npm's shell, or npm itself when the shell exec'd this process, as `npm start` does), and,
 * when that parent is a shell running a command string for npm, the shell's parent, npm.
 */
const POLL_MS = 250;

/** The parent of `pid` from /proc, or undefined (gone, or no /proc: the shell's parent goes unwatched). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs a command string (`sh -c ...`), as npm's script shell does. */
function runsCommandString(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1] === '-c';
  } catch {
    return false;
  }
}

export function followNpm(env: NodeJS.ProcessEnv = process.env): void {
  if (env.npm_lifecycle_event === undefined) return;
  const parent = process.ppid;
  // Only npm's own shell: a shell that started npm, or a supervisor above it, may end without this
  // process having to (`nohup npm start &`).
  const npm = runsCommandString(parent) ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    if (process.ppid === parent && (npm === undefined || parentOf(parent) === npm)) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, POLL_MS);
  // A command that ends by itself (`--help`, `data import`) is not kept alive by the watch.
  timer.unref();
}
