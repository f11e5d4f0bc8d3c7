import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * The accounts app's layers point one way (docs/architecture.md, "Layers"): this reads the import lines of every
 * source file under apps/accounts/src and fails on an edge that runs upward. Type-only imports count too, except
 * where a rule says values.
 */
const SRC = path.resolve(__dirname, '../../apps/accounts/src')

interface Edge {
  from: string // a path below SRC
  to: string // a path below SRC, or a package name
  local: boolean // a file of the app (a relative import)
  typeOnly: boolean
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) return sourceFiles(full)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : []
  })
}

/** Every import (and re-export) of the file, resolved below SRC when relative. */
export function importsOf(file: string, text: string): Edge[] {
  const edges: Edge[] = []
  const pattern = /^(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gms
  for (const m of text.matchAll(pattern)) {
    const spec = m[3]!
    const to = spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(file), spec)) : spec
    edges.push({ from: path.relative(SRC, file), to, local: spec.startsWith('.'), typeOnly: !!m[2] })
  }
  return edges
}

const under = (p: string, folder: string) => p === folder || p.startsWith(`${folder}/`)

/** The upward edges: [what runs upward, the rule it breaks]. */
export function upwardEdges(edges: Edge[]): string[] {
  const broken: string[] = []
  for (const e of edges) {
    const say = (rule: string) => broken.push(`${e.from} → ${e.to}: ${rule}`)
    if (under(e.from, 'db/migrations') && e.local && !under(e.to, 'db/migrations'))
      say('a migration imports no live code')
    if (under(e.from, 'db') && !under(e.from, 'db/migrations') && e.local && !under(e.to, 'db'))
      say('db (the row types) is the bottom layer: it imports nothing else of the app')
    if (under(e.from, 'text') && e.local && !under(e.to, 'text') && !(e.to === 'db/rows' && e.typeOnly))
      say(
        'text holds rules on text alone: it takes nothing from the rest of the app but the row types of db/rows',
      )
    if (under(e.from, 'queries') && e.local && !e.typeOnly && !under(e.to, 'queries') && !under(e.to, 'text'))
      say('queries take values from queries and text only: domain and the renderers build on them')
    if (under(e.from, 'entities') && under(e.to, 'domain') && !e.typeOnly)
      say('entities (renderers) take no values from domain: read helpers live in queries')
    const aboveDomain = ['api', 'users', 'oauth'].some((folder) => under(e.to, folder))
    if (under(e.from, 'domain') && (aboveDomain || e.to === '@roost/routes'))
      say('domain knows nothing of HTTP handlers, users, the OAuth server or the route table')
    if (under(e.from, 'users') && under(e.to, 'oauth')) say('users do not depend on the OAuth server')
  }
  return broken
}

it('no import of apps/accounts/src runs upward', () => {
  const edges = sourceFiles(SRC).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')))
  expect(edges.length).toBeGreaterThan(500)
  expect(upwardEdges(edges)).toEqual([])
})
