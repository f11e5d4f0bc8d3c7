import { readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.join(__dirname, '..')

it('the configuration table of docs/operations.md is the one generated from .env.example', async () => {
  const { readmeWithReference } = await import('../scripts/config-reference.mjs')
  const readme = readFileSync(path.join(root, 'docs', 'operations.md'), 'utf8')
  const envExample = readFileSync(path.join(root, '.env.example'), 'utf8')
  expect(readme).toContain('| `OAUTH_SIGNING_KEYS` |')
  expect(readmeWithReference(readme, envExample)).toBe(readme)
})
