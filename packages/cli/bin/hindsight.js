#!/usr/bin/env node
// The CLI runs the TypeScript sources directly through tsx's loader, in this process: tsx's own CLI
// would put a second process between the one a supervisor signals and the one that serves.
import { register } from 'tsx/esm/api';

register();
const { followLauncher, relaunchWithV8Flags } = await import('../src/relaunch.ts');
const { followNpm } = await import('../src/follow-npm.ts');
// A relaunched child follows its launcher; any other process, when npm started it, follows npm.
if (!followLauncher()) followNpm();
// `hindsight gateway` runs in a child started with the V8 flags its gateway wants (relaunch.ts).
if (!relaunchWithV8Flags()) await import('../src/main.ts');
