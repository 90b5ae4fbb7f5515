import { notFound } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';

/**
 * Every other `/v1` path is the web app (decision 32: 200 text/html). Until the web-app issue lands
 * this is a placeholder page that points at the API.
 */
const indexPage = (version: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Hindsight</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<main>
<h1>Hindsight</h1>
<p>Backtesting platform, version ${version}. The web app is coming; the management API is live.</p>
<ul>
<li><a href="/v1/openapi.json">OpenAPI description</a></li>
<li><a href="/v1/instruments">Instrument catalog</a></li>
<li><a href="/v1/templates">Strategy templates</a></li>
</ul>
</main>
</body>
</html>
`;

export async function webAppRoutes(app: FastifyInstance, { version }: { version: string }) {
  const page = indexPage(version);
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/v1/'));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const isWebPath = path === '/v1' || path.startsWith('/v1/');
    if (isWebPath && (request.method === 'GET' || request.method === 'HEAD')) {
      return reply.code(200).type('text/html; charset=utf-8').send(page);
    }
    const error = notFound(`Endpoint ${request.method} ${path}`);
    return reply.code(404).send(error.toBody());
  });
}
