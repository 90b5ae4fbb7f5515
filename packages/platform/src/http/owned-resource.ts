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
 * an id path parameter and loads the caller's resource, giving decision 35's order: 401, bad id 400,
 * 404/403, then any body problem (malformed JSON included) 400, then state 409.
 */
export function loadOwned(param: string, load: (ownerId: string, id: string) => Promise<unknown>) {
  return async (request: FastifyRequest) => {
    const id = (request.params as Record<string, string | undefined>)[param] ?? '';
    if (!isUuid(id)) throw badRequest(`${param}: "${id}" is not a UUID.`);
    request.owned = await load(principalOf(request).userId, id);
  };
}

export const ownedOf = <T>(request: FastifyRequest): T => request.owned as T;
