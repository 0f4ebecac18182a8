/**
 * The dashboard's build: `ui/` → `dist/ui/` (served at `/_/` by src/features/dashboard).
 * Relative asset paths (`base: './'`) so the build works under `/_/`; hashed names in `assets/`.
 */
import { fileURLToPath } from 'node:url'
import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

const here = fileURLToPath(new URL('.', import.meta.url))

export default defineConfig({
  root: here,
  base: './',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
})
