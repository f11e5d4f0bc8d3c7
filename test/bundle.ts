import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

const ROOT = path.resolve(__dirname, '..')

/**
 * A program of the repository (a worker, the CLI) bundled as `npm run build` bundles it (scripts/build-app.mjs:
 * @roost/* inside, npm packages external), from the sources as they are now, once per test process. A bundle starts in about a second where
 * tsx takes ten on a loaded machine, and it is what production runs. Written under node_modules/.cache, so the
 * bundle's `require`s find the repository's packages.
 */
const bundles = new Map<string, Promise<string>>()
export function bundle(entry: string): Promise<string> {
  let built = bundles.get(entry)
  if (!built) {
    const outfile = path.join(ROOT, 'node_modules/.cache/roost-tests', `${entry.replace(/[/.]/g, '-')}.js`)
    built = build({
      entryPoints: [path.join(ROOT, entry)],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'warning',
      write: false,
      plugins: [
        {
          name: 'external-dependencies',
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('@roost/') ? undefined : { path: args.path, external: true },
            )
          },
        },
      ],
    }).then((result) => {
      // Test processes running at once build the same file: each writes its own, then renames it into place.
      mkdirSync(path.dirname(outfile), { recursive: true })
      const temporary = `${outfile}.${process.pid}`
      writeFileSync(temporary, result.outputFiles[0]!.contents)
      renameSync(temporary, outfile)
      return outfile
    })
    bundles.set(entry, built)
  }
  return built
}
