#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx's loader.
import { register } from 'tsx/esm/api';

register();
// `hindsight gateway` runs in a child started with the V8 flags its gateway wants (relaunch.ts).
const { followLauncher, relaunchWithV8Flags } = await import('../src/relaunch.ts');
if (!relaunchWithV8Flags()) {
  followLauncher();
  await import('../src/main.ts');
}
