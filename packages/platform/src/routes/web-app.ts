import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { notFound } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';

/**
 * Every other `/v1` path is the web app (decision 32: 200 text/html): the single-page app of
 * packages/web, built into its dist/ by `npm run build`. The platform does not import the app; it
 * serves the folder it finds next to the installed `@hindsight/web` package (docs/web.md). A checkout
 * that has not been built gets a placeholder page that says so.
 */
const ASSETS_PREFIX = '/v1/assets/';

/** The web app's build output, or undefined when @hindsight/web is absent or not built. */
export function findWebDist(): string | undefined {
  try {
    const packageJson = createRequire(import.meta.url).resolve('@hindsight/web/package.json');
    const dist = join(dirname(packageJson), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : undefined;
  } catch {
    return undefined;
  }
}

const placeholderPage = (version: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Hindsight</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<main>
<h1>Hindsight</h1>
<p>Backtesting platform, version ${version}. The management API is live.</p>
<p>The web app is not built in this checkout: run <code>npm run build</code> and restart.</p>
<ul>
<li><a href="/v1/openapi.json">OpenAPI description</a></li>
<li><a href="/v1/instruments">Instrument catalog</a></li>
<li><a href="/v1/templates">Strategy templates</a></li>
</ul>
</main>
</body>
</html>
`;

export interface WebAppOptions {
  version: string;
  /** The web app's dist folder; found from @hindsight/web when not given, `null` for the placeholder. */
  webDist?: string | null;
}

export async function webAppRoutes(app: FastifyInstance, { version, webDist }: WebAppOptions) {
  const dist = webDist === undefined ? findWebDist() : (webDist ?? undefined);
  // Read once: the build is fixed for the life of the process.
  const page = dist ? readFileSync(join(dist, 'index.html'), 'utf8') : placeholderPage(version);
  if (dist) {
    // Asset names carry a content hash, so a client may keep them for good.
    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      prefix: ASSETS_PREFIX,
      index: false,
      decorateReply: false,
      maxAge: '365d',
      immutable: true,
    });
  }
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/v1/'));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const isWebPath = path === '/v1' || path.startsWith('/v1/');
    // Decision 32 holds for a missing asset too (an old page asking for a replaced build's file).
    if (isWebPath && (request.method === 'GET' || request.method === 'HEAD')) {
      // The page names the current assets, so it is revalidated on every load.
      return reply.code(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
    }
    const error = notFound(`Endpoint ${request.method} ${path}`);
    return reply.code(404).send(error.toBody());
  });
}
