import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ENGINE_VERSION } from '../src/index.ts';

describe('ENGINE_VERSION', () => {
  it("is the engine package's version", () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(ENGINE_VERSION, manifest.version);
  });
});
