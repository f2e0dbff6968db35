import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Served by the gateway at /console/ (same origin as the API: the session cookie just works). */
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, reportCompressedSize: false },
});
