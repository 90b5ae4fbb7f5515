/**
 * The signed-in session: kept in sessionStorage, read by the API clients for the bearer token and by
 * the app (useSession) to tell signed-in pages from the sign-in page.
 */
import { useSyncExternalStore } from 'react';

/** The web-app session: a JWT from POST /v1/auth/login, kept in sessionStorage (gone with the tab). */
export interface Session {
  token: string;
  email: string;
  expiresAt: string;
}

const storageKey = 'hindsight.session';
const listeners = new Set<() => void>();
let cached: { raw: string | null; session: Session | null } = { raw: null, session: null };

export function readSession(): Session | null {
  const raw = sessionStorage.getItem(storageKey);
  if (raw !== cached.raw) {
    let session: Session | null = null;
    try {
      session = raw ? (JSON.parse(raw) as Session) : null;
    } catch {
      session = null;
    }
    cached = { raw, session };
  }
  const session = cached.session;
  if (session && Date.parse(session.expiresAt) <= Date.now()) return null;
  return session;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(storageKey, JSON.stringify(session));
  for (const listener of listeners) listener();
}

export function clearSession(): void {
  sessionStorage.removeItem(storageKey);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSession(): Session | null {
  return useSyncExternalStore(subscribe, readSession);
}
