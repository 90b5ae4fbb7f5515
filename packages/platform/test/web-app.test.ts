import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { webAppRoutes } from '../src/routes/web-app.ts';

/** Every non-API `/v1` path is the web app; the browser tests of the app itself are in packages/web. */
async function serve(webDist: string | null) {
  const app = Fastify();
  await webAppRoutes(app, { version: '9.9.9', webDist });
  await app.ready();
  return app;
}

describe('web app routes', () => {
  test('a built app: index.html for every /v1 page, hashed assets kept for a year', async () => {
    const dist = mkdtempSync(join(tmpdir(), 'hindsight-web-dist-'));
    try {
      mkdirSync(join(dist, 'assets'));
      writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title>');
      writeFileSync(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
      const app = await serve(dist);
      for (const url of ['/v1', '/v1/', '/v1/app/keys', '/v1/anything?x=1']) {
        const page = await app.inject({ url });
        assert.equal(page.statusCode, 200, url);
        assert.match(page.headers['content-type'] as string, /^text\/html/);
        assert.equal(page.headers['cache-control'], 'no-cache');
        assert.equal(page.body, '<!doctype html><title>app</title>');
      }
      const asset = await app.inject({ url: '/v1/assets/index-abc.js' });
      assert.equal(asset.statusCode, 200);
      assert.equal(asset.body, 'console.log(1)');
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
      // Every other /v1 path is the app (decision 32), a replaced build's asset too.
      const missing = await app.inject({ url: '/v1/assets/index-gone.js' });
      assert.equal(missing.statusCode, 200);
      assert.equal(missing.headers['cache-control'], 'no-cache');
      assert.equal(missing.body, '<!doctype html><title>app</title>');
      await app.close();
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  test('no build: a placeholder page that says to run the build', async () => {
    const app = await serve(null);
    const page = await app.inject({ url: '/v1/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.match(page.body, /version 9\.9\.9/);
    assert.match(page.body, /npm run build/);
    await app.close();
  });

  test('other methods and paths outside /v1 answer 404 with the error envelope', async () => {
    const app = await serve(null);
    for (const [method, url] of [
      ['POST', '/v1/app/keys'],
      ['DELETE', '/v1/nothing'],
      ['GET', '/elsewhere'],
    ] as const) {
      const response = await app.inject({ method, url });
      assert.equal(response.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(response.json(), {
        error: { code: 'NOT_FOUND', message: `Endpoint ${method} ${url} was not found.` },
      });
    }
    const root = await app.inject({ url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/v1/');
    await app.close();
  });
});
