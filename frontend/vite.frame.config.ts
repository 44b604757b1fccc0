import { defineConfig } from 'vite';

// The frame client (src/extensions/frame) as one classic script at a stable
// name, dist/ext-runtime/frame.js: the server puts
// <script src="/ext-runtime/frame.js"> at the top of every sandboxed
// extension's entry page, so it must run without modules and before the
// page's own scripts. It runs after the app's build (package.json "build"),
// writing beside its output without emptying dist/.
export default defineConfig({
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    copyPublicDir: false,
    target: 'es2022',
    lib: {
      entry: 'src/extensions/frame/main.ts',
      formats: ['iife'],
      name: 'HearthFrame',
      fileName: () => 'ext-runtime/frame.js',
    },
  },
});
