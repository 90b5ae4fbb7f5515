import { jwtVerify, SignJWT } from 'jose';
import { looksLikeJwt, verifySessionToken } from '../auth/session-tokens.ts';

/**
 * Who may pull or push which repository of the built-in registry (decision 19d).
 *
 * Repository tokens are HS256 JWTs signed with the platform's secret, audience `hindsight-registry`,
 * carrying Docker-token-style `access` claims (`[{type: "repository", name: "v/<versionId>", actions}]`).
 * Three kinds are minted, all with this one function:
 * - the `accessToken` of version creation: push and pull on that version's repository only;
 * - the tokens `GET /v2/token` hands OCI clients (the Docker token flow), never wider than the
 *   credential they were asked with;
 * - internal pull tokens (`issuePullToken`): the hook the scenario workers use to fetch an image.
 * A platform API key or web-app session is a user credential: it may pull the user's own versions, and
 * push nothing (only the version's accessToken pushes).
 */
export type RegistryAction = 'pull' | 'push';

export interface RepositoryAccess {
  type: 'repository';
  name: string;
  actions: RegistryAction[];
}

export type RegistryCredential =
  | { kind: 'token'; access: RepositoryAccess[]; expiresAt: Date }
  | { kind: 'user'; userId: string };

const AUDIENCE = 'hindsight-registry';
const ISSUER = 'hindsight';

/** The version's push credential lives this long: long enough for a large push, short enough to leak little. */
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** Tokens of `GET /v2/token` for a user credential (clients ask again when one expires). */
export const REGISTRY_TOKEN_TTL_SECONDS = 15 * 60;

export const repositoryName = (versionId: string) => `v/${versionId}`;

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export async function issueRepositoryToken(
  secret: Uint8Array,
  subject: string,
  access: RepositoryAccess[],
  expiresAt: Date,
  now = new Date(),
): Promise<IssuedToken> {
  const token = await new SignJWT({ access })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(secret);
  return { token, expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000) };
}

/** The push credential returned beside a created version (push and pull on its repository only). */
export const issueVersionAccessToken = (secret: Uint8Array, versionId: string, now = new Date()) =>
  issueRepositoryToken(
    secret,
    versionId,
    [{ type: 'repository', name: repositoryName(versionId), actions: ['pull', 'push'] }],
    new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
    now,
  );

/**
 * The hook for workers (a later part): a short-lived pull-only credential for one version's image,
 * usable as `Authorization: Bearer <token>` or as the password of basic auth.
 */
export const issuePullToken = (
  secret: Uint8Array,
  versionId: string,
  ttlSeconds = 10 * 60,
  now = new Date(),
) =>
  issueRepositoryToken(
    secret,
    'internal',
    [{ type: 'repository', name: repositoryName(versionId), actions: ['pull'] }],
    new Date(now.getTime() + ttlSeconds * 1000),
    now,
  );

function accessClaim(value: unknown): RepositoryAccess[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const access: RepositoryAccess[] = [];
  for (const entry of value) {
    const { type, name, actions } = (entry ?? {}) as Record<string, unknown>;
    if (type !== 'repository' || typeof name !== 'string' || !Array.isArray(actions)) return undefined;
    access.push({
      type,
      name,
      actions: actions.filter((a): a is RegistryAction => a === 'pull' || a === 'push'),
    });
  }
  return access;
}

async function verifyRepositoryToken(
  secret: Uint8Array,
  token: string,
): Promise<RegistryCredential | undefined> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    const access = accessClaim(payload.access);
    if (!access || payload.exp === undefined) return undefined;
    return { kind: 'token', access, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return undefined;
  }
}

export interface CredentialResolver {
  secret: Uint8Array;
  /** Resolves a platform API key to its user id. */
  apiKeyUser(key: string): Promise<string | undefined>;
  userExists(userId: string): Promise<boolean>;
}

/** A presented secret (bearer value or basic-auth password): a repository token, a session, or an API key. */
export async function resolveCredential(
  resolver: CredentialResolver,
  secret: string,
): Promise<RegistryCredential | undefined> {
  if (looksLikeJwt(secret)) {
    const token = await verifyRepositoryToken(resolver.secret, secret);
    if (token) return token;
    const userId = await verifySessionToken(resolver.secret, secret);
    return userId && (await resolver.userExists(userId)) ? { kind: 'user', userId } : undefined;
  }
  const userId = await resolver.apiKeyUser(secret);
  return userId ? { kind: 'user', userId } : undefined;
}

/** The secret of an `Authorization` header: a bearer value, or the password of basic auth (any user name). */
export function presentedSecret(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer?.[1]) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  return password === '' ? undefined : password;
}

/** Actions a token credential grants on a repository. */
export function tokenActions(credential: RegistryCredential, name: string): Set<RegistryAction> {
  if (credential.kind !== 'token') return new Set();
  return new Set(credential.access.filter((a) => a.name === name).flatMap((a) => a.actions));
}

/** `repository:v/<id>:pull,push` scopes of a token request (others are ignored, as the token spec allows). */
export function parseScopes(scopes: string[]): { name: string; actions: RegistryAction[] }[] {
  const parsed: { name: string; actions: RegistryAction[] }[] = [];
  for (const scope of scopes.flatMap((s) => s.split(' '))) {
    const match = /^repository:([^:]+):([a-z*,]+)$/.exec(scope);
    if (!match?.[1] || !match[2]) continue;
    const actions = match[2]
      .split(',')
      .flatMap((a): RegistryAction[] =>
        a === '*' ? ['pull', 'push'] : a === 'pull' || a === 'push' ? [a] : [],
      );
    parsed.push({ name: match[1], actions: [...new Set(actions)] });
  }
  return parsed;
}
