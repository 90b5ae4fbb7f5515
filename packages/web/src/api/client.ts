/**
 * The typed /v1 client (openapi-fetch over openapi.gen.ts) every page uses, with the session's bearer
 * token, and the sign-in call the documented API does not include.
 */
import createClient from 'openapi-fetch';
import { clearSession, readSession } from '../session.ts';
import type { paths } from './openapi.gen.ts';

/** The management API, typed from the platform's openapi.json; sends the session token when there is one. */
export const api = createClient<paths>({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    const session = readSession();
    if (session) request.headers.set('Authorization', `Bearer ${session.token}`);
    return request;
  },
  onResponse({ response }) {
    // An expired or revoked session: forget it, so the app sends the user back to sign in.
    if (response.status === 401 && readSession()) clearSession();
    return response;
  },
  onError({ error }) {
    // A network failure (platform down, connection lost) would reject the call, and every page reads
    // `{data, error}` without a try: answer it like an API error instead, so pages show the message.
    // An aborted request stays a rejection; whoever aborted it expects that.
    if (error instanceof DOMException && error.name === 'AbortError') return error;
    return Response.json(
      { error: { code: 'NETWORK', message: 'Could not reach the platform.' } } satisfies ApiErrorBody,
      { status: 503 },
    );
  },
});

/** Every API error is `{error: {code, message, details?}}`. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorMessage(error: unknown, fallback = 'The request failed.'): string {
  const message = (error as Partial<ApiErrorBody> | undefined)?.error?.message;
  return typeof message === 'string' && message.length > 0 ? message : fallback;
}

/**
 * POST /v1/auth/login. The route is hidden from openapi.json (it is the web app's, not the documented
 * API's), so it has no generated type and is called with plain fetch.
 */
export async function signIn(
  email: string,
  password: string,
): Promise<{ ok: true; token: string; expiresAt: string } | { ok: false; message: string }> {
  let response: Response;
  try {
    response = await fetch('/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
  } catch {
    return { ok: false, message: 'Could not reach the platform.' };
  }
  const body = (await response.json().catch(() => undefined)) as
    | { data?: { token: string; expiresAt: string } }
    | ApiErrorBody
    | undefined;
  if (response.ok && body && 'data' in body && body.data) {
    return { ok: true, token: body.data.token, expiresAt: body.data.expiresAt };
  }
  return { ok: false, message: errorMessage(body, `Sign-in failed (HTTP ${response.status}).`) };
}
