import { badRequest, isUuid } from '@hindsight/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf } from './authentication.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The resource named by the path, loaded by `loadOwned` for the caller. */
    owned: unknown;
  }
}

export function registerOwnedResource(app: FastifyInstance): void {
  app.decorateRequest('owned', null);
}

/**
 * A route `onRequest` hook (it runs after authentication, before the body is even parsed) that checks
 * the id path parameters and loads the caller's resource, giving decision 35's order: 401, bad id 400
 * (every id of the path before any lookup), 404/403, then any body problem (malformed JSON included)
 * 400, then state 409. `params` names one id, or a parent and child (`['strategy_id', 'version_id']`).
 */
export function loadOwned(
  params: string | string[],
  load: (ownerId: string, ...ids: string[]) => Promise<unknown>,
) {
  const names = typeof params === 'string' ? [params] : params;
  return async (request: FastifyRequest) => {
    const path = request.params as Record<string, string | undefined>;
    const ids = names.map((param) => {
      const id = path[param] ?? '';
      if (!isUuid(id)) throw badRequest(`${param}: "${id}" is not a UUID.`);
      return id;
    });
    request.owned = await load(principalOf(request).userId, ...ids);
  };
}

export const ownedOf = <T>(request: FastifyRequest): T => request.owned as T;
