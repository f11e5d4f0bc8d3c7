// `npx tsx scripts/dev/compose-env.ts > .env`: the development keys of .data/secrets.json (made on first use)
// as the env file docker compose reads for variable substitution.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { devSecrets } from './secrets'

const dataDir = path.resolve(__dirname, '../..', process.env.ROOST_DATA_DIR || '.data')
mkdirSync(dataDir, { recursive: true })
devSecrets(dataDir).then((secrets) => {
  // Single quotes keep the JSON of OAUTH_SIGNING_KEYS intact.
  for (const [key, value] of Object.entries(secrets)) process.stdout.write(`${key}='${value}'\n`)
})
