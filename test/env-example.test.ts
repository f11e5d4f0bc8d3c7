import { readdirSync, readFileSync, existsSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { baseEnv } from '@roost/service'

const root = path.join(__dirname, '..')

/** The variables .env.example sets, each with the comment line just above it. */
function documentedVariables(): Map<string, string> {
  const lines = readFileSync(path.join(root, '.env.example'), 'utf8').split('\n')
  const documented = new Map<string, string>()
  lines.forEach((line, i) => {
    const match = line.match(/^([A-Z][A-Z0-9_]*)=/)
    if (match) documented.set(match[1]!, lines[i - 1]?.startsWith('# ') ? lines[i - 1]! : '')
  })
  return documented
}

/** The config files of the apps: src/config.ts, and any other src/*config.ts (a worker's, say). */
const configFiles = () =>
  readdirSync(path.join(root, 'apps')).flatMap((app) => {
    const src = path.join(root, 'apps', app, 'src')
    return existsSync(src)
      ? readdirSync(src)
          .filter((f) => /config\.ts$/.test(f) && !f.endsWith('.test.ts'))
          .map((f) => [app, path.join(src, f)] as const)
      : []
  })

/** Every zod object schema exported by an app's config files (and the shared base), by where it comes from. */
function configSchemas(): [string, z.ZodObject][] {
  const schemas: [string, z.ZodObject][] = [['packages/service baseEnv', baseEnv]]
  for (const [app, file] of configFiles()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    for (const [name, value] of Object.entries(require(file) as Record<string, unknown>))
      if (value instanceof z.ZodObject) schemas.push([`apps/${app} ${name}`, value])
  }
  return schemas
}

describe('.env.example', () => {
  it('documents every key of every config schema, each with a comment line', () => {
    const documented = documentedVariables()
    const schemas = configSchemas()
    expect(schemas.map(([name]) => name)).toEqual(
      expect.arrayContaining(['apps/accounts accountsEnv', 'apps/gateway gatewayEnv', 'apps/push pushEnv']),
    )
    const missing: string[] = []
    for (const [name, schema] of schemas)
      for (const key of Object.keys(schema.shape)) if (!documented.get(key)) missing.push(`${key} (${name})`)
    expect(missing).toEqual([])
  })
})
