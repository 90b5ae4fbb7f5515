import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform serves dist/index.html for every non-API `/v1` path and dist/assets under /v1/assets/.
export default defineConfig({
  base: '/v1/',
  plugins: [react()],
  build: { outDir: 'dist', assetsDir: 'assets', emptyOutDir: true },
});
