import { jwtVerify, SignJWT } from 'jose';

/** Web-app sessions: a signed JWT whose subject is the user id. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
const ISSUER = 'hindsight';
const AUDIENCE = 'hindsight-web';

export interface SessionToken {
  token: string;
  expiresAt: Date;
}

export async function issueSessionToken(
  secret: Uint8Array,
  userId: string,
  now = new Date(),
): Promise<SessionToken> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = new Date((issuedAt + SESSION_TTL_SECONDS) * 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(secret);
  return { token, expiresAt };
}

/** Returns the user id of a valid, unexpired session token, or undefined. */
export async function verifySessionToken(secret: Uint8Array, token: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

export const looksLikeJwt = (value: string): boolean => value.split('.').length === 3;
