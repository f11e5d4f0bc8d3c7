import { readFileSync } from 'node:fs'
import path from 'node:path'
import { accountsEnv } from '../../apps/accounts/src/config'
import { gatewayEnv } from '../../apps/gateway/src/config'
import { pushEnv } from '../../apps/push/src/config'

it("documents every configuration key of every app in the README's Operations section", () => {
  const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8')
  const operations = readme.slice(readme.indexOf('## Operations'))
  expect(operations.startsWith('## Operations')).toBe(true)
  const keys = new Set([gatewayEnv, accountsEnv, pushEnv].flatMap((schema) => Object.keys(schema.shape)))
  const missing = [...keys].filter((key) => !operations.includes(`\`${key}\``))
  expect(missing).toEqual([])
})
