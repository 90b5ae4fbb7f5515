/**
 * The sign-in page (/sign-in): email and password for a session token, then back to the page the
 * visitor was sent from (`next`, kept to this app's own paths).
 */
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { signIn } from '../api/client.ts';
import { saveSession, useSession } from '../session.ts';

export function SignInPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const emailInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Hindsight';
    emailInput.current?.focus();
  }, []);

  if (session && !busy) return <Navigate to={next} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email, password);
    if (result.ok) {
      saveSession({ token: result.token, expiresAt: result.expiresAt, email });
      navigate(next, { replace: true });
      return;
    }
    setBusy(false);
    setError(result.message);
  };

  return (
    <main className="sign-in">
      <h1>Sign in to Hindsight</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="email">Email</label>
        <input
          id="email"
          ref={emailInput}
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        {error && (
          <p id="sign-in-error" className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Only a path inside the app, never another origin. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}
