import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * The rule of issue #32 (docs/architecture.md, "Errors"): the domain and the code of the accounts worker throw and
 * test domain errors (`@roost/errors`), never an HTTP error. This reads the import lines of every file under these
 * folders and fails on any name of packages/service/src/errors.ts (HttpError, recordNotFound, unprocessable, …).
 */
const LAYERS = ['domain', 'feeds', 'activities', 'timers', 'federation']
const SERVICE_SRC = path.resolve(__dirname, '../../../packages/service/src')

/** Every name packages/service/src/errors.ts exports. */
const HTTP_ERROR_NAMES = new Set(
  [
    ...readFileSync(path.join(SERVICE_SRC, 'errors.ts'), 'utf8').matchAll(
      /^export (?:const|let|function|class|type|interface) (\w+)/gm,
    ),
  ].map((m) => m[1]!),
)

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) return filesUnder(file)
    return /\.tsx?$/.test(entry.name) ? [file] : []
  })

/** Whether a module specifier, written in `file`, names packages/service (the package or a file of it). */
function isServiceModule(specifier: string, file: string) {
  if (specifier === '@roost/service' || specifier.startsWith('@roost/service/')) return true
  if (!specifier.startsWith('.')) return false
  const resolved = path.resolve(path.dirname(file), specifier)
  return resolved === SERVICE_SRC || resolved.startsWith(SERVICE_SRC + path.sep)
}

/** The HTTP errors `source` (the text of `file`) imports or re-exports, one line each; empty when none. */
function httpErrorImports(source: string, file: string): string[] {
  const found: string[] = []
  const statements =
    /\b(import|export)\s+(?:type\s+)?([\w*{}\s,$]*?)\s*from\s*['"]([^'"]+)['"]|\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g
  for (const m of source.matchAll(statements)) {
    const specifier = m[3] ?? m[4]!
    if (!isServiceModule(specifier, file)) continue
    const clause = m[2]
    const named = clause?.match(/^\{([^}]*)\}$/)
    if (!named) {
      // A namespace, default, `export *` or dynamic import of the package: every name is in reach.
      found.push(m[0].replace(/\s+/g, ' '))
      continue
    }
    for (const part of named[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!
      if (HTTP_ERROR_NAMES.has(name)) found.push(`${name} from '${specifier}'`)
    }
  }
  return found
}

describe('domain errors, not HTTP errors, under domain/, feeds/, activities/, timers/ and federation/', () => {
  it('knows the names packages/service/src/errors.ts exports', () => {
    for (const name of [
      'HttpError',
      'recordNotFound',
      'unprocessable',
      'forbidden',
      'badRequest',
      'oauthError',
    ])
      expect(HTTP_ERROR_NAMES).toContain(name)
  })

  it('finds an HTTP error however it is imported', () => {
    const file = path.join(__dirname, 'domain/example.ts')
    expect(httpErrorImports(`import { recordNotFound } from '@roost/service'`, file)).toEqual([
      `recordNotFound from '@roost/service'`,
    ])
    expect(
      httpErrorImports(`import {\n  createLogger,\n  type HttpError as E,\n} from "@roost/service"\n`, file),
    ).toEqual([`HttpError from '@roost/service'`])
    expect(httpErrorImports(`import type { HttpError } from '@roost/service'`, file)).toHaveLength(1)
    expect(httpErrorImports(`export { forbidden } from '@roost/service'`, file)).toHaveLength(1)
    expect(httpErrorImports(`import * as service from '@roost/service'`, file)).toHaveLength(1)
    expect(httpErrorImports(`const s = require('@roost/service')`, file)).toHaveLength(1)
    expect(
      httpErrorImports(`import { unprocessable } from '../../../../packages/service/src/errors'`, file),
    ).toHaveLength(1)
    expect(httpErrorImports(`import type { Logger, Page } from '@roost/service'`, file)).toEqual([])
    expect(httpErrorImports(`import { NotFound } from '@roost/errors'`, file)).toEqual([])
    expect(httpErrorImports(`import { forbidden } from './rules'`, file)).toEqual([])
  })

  it('imports none', () => {
    const files = LAYERS.flatMap((layer) => filesUnder(path.join(__dirname, layer)))
    expect(files.length).toBeGreaterThan(50)
    const found = files.flatMap((file) =>
      httpErrorImports(readFileSync(file, 'utf8'), file).map(
        (i) => `${path.relative(__dirname, file)}: ${i}`,
      ),
    )
    expect(found).toEqual([])
  })
})
