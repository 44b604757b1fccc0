/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The desktop build embeds dist/ into the Go binary, and so does `hearth
// serve`; scripts/clean-dist.mjs empties it before each build but keeps the
// committed dist/.gitkeep, so `go build` works on a fresh checkout too.
export default defineConfig({
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
