import type { ReactNode } from 'react';
import { Link, Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { clearSession, useSession } from './session.ts';

/** Pages are under `/v1/app/` (the router's basename, main.tsx); the platform serves this app for each. */
export function App() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route
        path="/"
        element={
          <SignedIn>
            <Navigate to="/keys" replace />
          </SignedIn>
        }
      />
      <Route
        path="/keys"
        element={
          <SignedIn>
            <ApiKeysPage />
          </SignedIn>
        }
      />
      <Route
        path="*"
        element={
          <SignedIn>
            <NotFound />
          </SignedIn>
        }
      />
    </Routes>
  );
}

/** Renders its page inside the app's frame when there is a session; otherwise goes to sign in. */
function SignedIn({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const next = location.pathname === '/' ? '' : `?next=${encodeURIComponent(location.pathname)}`;
    return <Navigate to={`/sign-in${next}`} replace />;
  }
  return <Frame email={session.email}>{children}</Frame>;
}

function Frame({ email, children }: { email: string; children: ReactNode }) {
  const navigate = useNavigate();
  const signOut = () => {
    clearSession();
    navigate('/sign-in', { replace: true });
  };
  return (
    <>
      <header className="top">
        <Link to="/" className="brand">
          Hindsight
        </Link>
        <nav aria-label="Main">
          <NavLink to="/keys">API keys</NavLink>
        </nav>
        <div className="account">
          <span className="email">{email}</span>
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>{children}</main>
    </>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page here. <Link to="/keys">Go to API keys</Link>.
      </p>
    </section>
  );
}
