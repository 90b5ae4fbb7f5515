import { unauthorized } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { issueSessionToken } from '../auth/session-tokens.ts';
import type { PlatformContext } from '../http/context.ts';
import { notNullMessage } from '../http/fields.ts';
import { envelope, errorResponses, isoTimestamp } from '../http/schemas.ts';

/** Web-app sign-in. Not part of the documented API, so hidden from openapi.json. */
export async function authRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/auth/login',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        body: z.strictObject({
          email: z.string({ error: notNullMessage('a string') }).min(1, 'is required'),
          password: z.string({ error: notNullMessage('a string') }).min(1, 'is required'),
        }),
        response: {
          200: envelope(z.object({ token: z.string(), expiresAt: isoTimestamp })),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const user = await ctx.users.authenticate(request.body.email, request.body.password);
      if (!user) throw unauthorized('Email or password is wrong.');
      const session = await issueSessionToken(ctx.signingSecret, user.id);
      return { data: { token: session.token, expiresAt: session.expiresAt.toISOString() } };
    },
  );
}
