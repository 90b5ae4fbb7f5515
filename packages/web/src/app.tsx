/**
 * The app's routes and frame: the header with the navigation and the signed-in user, and the guard
 * that sends a signed-out visitor to the sign-in page (and back after).
 */
import type { ComponentType, ReactNode } from 'react';
import { Link, Navigate, NavLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { CatalogPage } from './pages/catalog.tsx';
import { ComparePage } from './pages/compare.tsx';
import { ConfigurationEditorPage } from './pages/configuration-editor.tsx';
import { ConfigurationsPage } from './pages/configurations.tsx';
import { RunPage } from './pages/run.tsx';
import { RunsPage } from './pages/runs.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { StrategiesPage } from './pages/strategies.tsx';
import { StrategyPage } from './pages/strategy.tsx';
import { SweepPage } from './pages/sweep.tsx';
import { SweepsPage } from './pages/sweeps.tsx';
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
            <Navigate to="/runs" replace />
          </SignedIn>
        }
      />
      {pages.map(([path, Page]) => (
        <Route
          key={path}
          path={path}
          element={
            <SignedIn>
              <Page />
            </SignedIn>
          }
        />
      ))}
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

/** Every signed-in page and its path under the basename. */
const pages: [string, ComponentType][] = [
  ['/runs', RunsPage],
  ['/runs/:scenarioId', RunPage],
  ['/strategies', StrategiesPage],
  ['/strategies/:strategyId', StrategyPage],
  ['/configurations', ConfigurationsPage],
  ['/configurations/new', ConfigurationEditorPage],
  ['/configurations/:configId', ConfigurationEditorPage],
  ['/sweeps', SweepsPage],
  ['/sweeps/:batchId', SweepPage],
  ['/compare', ComparePage],
  ['/catalog', CatalogPage],
  ['/keys', ApiKeysPage],
];

/** Renders its page inside the app's frame when there is a session; otherwise goes to sign in. */
function SignedIn({ children }: { children: ReactNode }) {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    const next =
      location.pathname === '/' ? '' : `?next=${encodeURIComponent(location.pathname + location.search)}`;
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
          <NavLink to="/runs">Runs</NavLink>
          <NavLink to="/strategies">Strategies</NavLink>
          <NavLink to="/configurations">Configurations</NavLink>
          <NavLink to="/sweeps">Sweeps</NavLink>
          <NavLink to="/compare">Compare</NavLink>
          <NavLink to="/catalog">Catalog</NavLink>
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
        There is no page here. <Link to="/runs">Go to runs</Link>.
      </p>
    </section>
  );
}
