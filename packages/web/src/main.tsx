/**
 * The web app's entry point: mounts the app under the /v1/app router basename, with the global styles.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import './styles.css';

/**
 * Pages live under /v1/app/ so that no page shares a path with an API endpoint (a reload of
 * /v1/api-keys would get the API's JSON); the platform serves this app for /v1/ too, which is sent on.
 */
const basename = '/v1/app';
if (window.location.pathname !== basename && !window.location.pathname.startsWith(`${basename}/`)) {
  window.history.replaceState(null, '', `${basename}/`);
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <BrowserRouter basename={basename}>
      <App />
    </BrowserRouter>
  </StrictMode>,
);
