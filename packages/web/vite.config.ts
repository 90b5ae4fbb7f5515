import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform serves dist/index.html for every non-API `/v1` path and dist/assets under /v1/assets/.
// `HINDSIGHT_API=http://127.0.0.1:8000 npx vite` serves the app with hot reload and sends the API's
// paths (every /v1 path that is not the app's own, and /app-api) to that platform.
const platform = process.env.HINDSIGHT_API;
const devOwnPaths = '(?!app(/|$)|@|src/|node_modules/|assets/|$)';

export default defineConfig({
  base: '/v1/',
  plugins: [react()],
  build: { outDir: 'dist', assetsDir: 'assets', emptyOutDir: true },
  server: platform
    ? {
        proxy: {
          [`^/v1/${devOwnPaths}`]: { target: platform },
          '/app-api': { target: platform },
        },
      }
    : {},
});
