// `npm run migrate`: brings every service's schema up to date in DATABASE_URL (default: packages/service's
// baseEnv), creating the database first if it does not exist. Prints what it applied. Never run by a request.
import pg from 'pg'
import { baseEnv, parseConfig } from '@roost/service'
import { migrateAccounts } from '../apps/accounts/src/service'
import { migratePush } from '../apps/push/src/service'

async function ensureDatabase(databaseUrl: string) {
  const url = new URL(databaseUrl)
  const name = decodeURIComponent(url.pathname.slice(1))
  url.pathname = '/postgres'
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name])
    if (!exists.rowCount) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
      console.log(`created database ${name}`)
    }
  } finally {
    await client.end()
  }
}

async function main() {
  const { DATABASE_URL } = parseConfig(baseEnv, process.env)
  await ensureDatabase(DATABASE_URL)
  for (const [schema, migrate] of [
    ['accounts', migrateAccounts],
    ['push', migratePush],
  ] as const) {
    const applied = await migrate(DATABASE_URL)
    console.log(applied.length ? `${schema}: applied ${applied.join(', ')}` : `${schema}: already up to date`)
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
