// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';

// Atrium runs behind its own HTTP server (src/server/main.ts): it owns the page cache, static
// files, compression and shutdown, and hands every other request to Astro's middleware handler.
export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware', bodySizeLimit: 16 * 1024 * 1024 }),
  integrations: [
    react(),
    {
      // `client:interact`: hydrate on the first interaction (editors, reply boxes), see the entrypoint.
      name: 'atrium-client-interact',
      hooks: {
        'astro:config:setup': ({ addClientDirective }) => {
          addClientDirective({ name: 'interact', entrypoint: './src/lib/client/directives/interact.ts' });
        },
      },
    },
  ],
  telemetry: false,
  // src/middleware.ts refuses cross-site form posts itself, with the API's envelope on /api
  // (Astro's check answered plain text).
  security: { checkOrigin: false },
  server: { port: Number(process.env.PORT ?? 4321), host: process.env.HOST ?? 'localhost' },
  build: { inlineStylesheets: 'never' },
  prefetch: false,
  devToolbar: { enabled: false },
  vite: {
    build: { assetsInlineLimit: 0 },
  },
});
