// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';

// Atrium runs behind its own HTTP server (src/server/main.ts): it owns the page cache, static
// files, compression and shutdown, and hands every other request to Astro's middleware handler.
export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware', bodySizeLimit: 16 * 1024 * 1024 }),
  integrations: [react()],
  telemetry: false,
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  build: { inlineStylesheets: 'never' },
  prefetch: false,
  devToolbar: { enabled: false },
  vite: {
    build: { assetsInlineLimit: 0 },
  },
});
