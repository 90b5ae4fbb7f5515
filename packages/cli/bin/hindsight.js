#!/usr/bin/env node
// The `hindsight` command. `#main` (package.json `imports`) is the compiled CLI that `npm install`
// builds into dist/, run by plain node; under `node --conditions=source --import tsx` (the tests) it
// is the TypeScript source instead.
try {
  await import('#main');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !error.message.includes('/dist/main.js')) throw error;
  console.error('hindsight: the packages are not built: run `npm install` (or `npm run build`) first.');
  process.exit(1);
}
