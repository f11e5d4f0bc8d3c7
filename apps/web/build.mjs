#!/usr/bin/env node
// Builds the web app (docs/architecture.md, "The web app"): src/main.tsx and what it imports (Preact included)
// into one minified dist/app.js for today's browsers, and src/app.css copied to dist/app.css. The gateway serves
// both at /web-assets. A few hundred milliseconds; `npm run build`, `npm start` and the tests' set-up run it.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = path.dirname(fileURLToPath(import.meta.url))
const dist = path.join(here, 'dist')

export async function buildWeb() {
  rmSync(dist, { recursive: true, force: true })
  mkdirSync(dist, { recursive: true })
  const result = await build({
    entryPoints: [path.join(here, 'src/main.tsx')],
    outfile: path.join(dist, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  })
  copyFileSync(path.join(here, 'src/app.css'), path.join(dist, 'app.css'))
  return result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const bytes = await buildWeb()
  console.log(`web: dist/app.js (${Math.round(bytes / 1024)} kB)`)
}
