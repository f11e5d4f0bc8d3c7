#!/usr/bin/env node
// Builds the app in the current directory (turbo runs `node ../../scripts/build-app.mjs` in each app):
// bundles src/main.ts, and src/worker-main.ts when the app has one, into dist/ for Node 20. Roost's own
// workspace packages (@roost/*) are bundled in; npm dependencies stay external and load from node_modules.
import { existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const entries = ['src/main.ts', 'src/worker-main.ts'].filter((file) => existsSync(file))
if (!entries.length) {
  // An app still being written has no entry point yet: nothing to bundle is not a failed build.
  console.warn(`${path.basename(process.cwd())}: no src/main.ts yet, nothing to build`)
  process.exit(0)
}

/** Bare imports other than @roost/* (npm packages, node builtins) are left for Node to load at run time. */
const externalDependencies = {
  name: 'external-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@roost/') ? undefined : { path: args.path, external: true },
    )
  },
}

rmSync('dist', { recursive: true, force: true })
const result = await build({
  entryPoints: entries,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  plugins: [externalDependencies],
  metafile: true,
  logLevel: 'warning',
})
for (const [file, output] of Object.entries(result.metafile.outputs))
  if (file.endsWith('.js'))
    console.log(`${path.basename(process.cwd())}: ${file} (${Math.round(output.bytes / 1024)} kB)`)
