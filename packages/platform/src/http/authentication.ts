import { ApiError, unauthorized } from '@hindsight/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { looksLikeJwt, verifySessionToken } from '../auth/session-tokens.ts';
import type { PlatformContext } from './context.ts';

/**
 * Who may call a route (spec: Authentication): `key` takes an API key in X-API-Key or as bearer (and
 * the web app's session); `session` takes only a session token, so a key can never mint keys.
 */
export type AuthMode = 'key' | 'session' | 'public';

export interface Principal {
  userId: string;
  via: 'api-key' | 'session';
  /** The key's prefix when the caller used an API key. */
  keyPrefix?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The authenticated caller; only valid on routes whose auth mode is not `public`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('INTERNAL_ERROR', 'Route is missing its authentication mode.');
  return request.principal;
}

function presentedCredential(
  request: FastifyRequest,
): { kind: 'header-key' | 'bearer'; value: string } | undefined {
  const key = request.headers['x-api-key'];
  if (typeof key === 'string' && key.length > 0) return { kind: 'header-key', value: key };
  const authorization = request.headers.authorization;
  const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (match?.[1]) return { kind: 'bearer', value: match[1] };
  return undefined;
}

export function registerAuthentication(app: FastifyInstance, ctx: PlatformContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config.auth ?? 'public';
    if (mode === 'public') return;
    const credential = presentedCredential(request);
    if (!credential) {
      throw unauthorized(
        mode === 'session'
          ? 'This endpoint needs a web-app session token as `Authorization: Bearer <token>` (POST /v1/auth/login).'
          : 'Send your API key in the X-API-Key header (or as `Authorization: Bearer <key>`).',
      );
    }
    if (credential.kind === 'bearer' && looksLikeJwt(credential.value)) {
      const userId = await verifySessionToken(ctx.signingSecret, credential.value);
      if (!userId || !(await ctx.users.findById(userId))) {
        throw unauthorized('The session token is invalid or expired; sign in again.');
      }
      request.principal = { userId, via: 'session' };
      return;
    }
    if (mode === 'session') {
      throw unauthorized('API keys cannot manage API keys; use a web-app session token as bearer.');
    }
    const userId = await ctx.apiKeys.authenticate(credential.value);
    if (!userId) throw unauthorized('The API key is invalid or has been revoked.');
    request.principal = { userId, via: 'api-key', keyPrefix: credential.value.slice(0, 8) };
  });
}
