// `npm run migrate [accounts|push]`: brings each service's schema (or the one named) to its latest migration.
// Run by docker compose's `migrate` step and by the Kubernetes migration Jobs, never by a request.
import { ensureDatabase } from './dev/postgres'
import { migrateAccounts } from '../apps/accounts/src/service'
import { migratePush } from '../apps/push/src/service'

const MIGRATIONS: Record<string, (url: string) => Promise<string[]>> = {
  accounts: migrateAccounts,
  push: migratePush,
}

async function main() {
  // Straight to Postgres: a migration takes a session-level lock, which a pooler in transaction mode cannot keep.
  const url =
    process.env.DB_DIRECT_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/roost'
  const wanted = process.argv.slice(2)
  const unknown = wanted.filter((name) => !MIGRATIONS[name])
  if (unknown.length)
    throw new Error(`Unknown schema ${unknown.join(', ')}; known: ${Object.keys(MIGRATIONS).join(', ')}`)
  if (process.env.MIGRATE_CREATE_DATABASE !== 'false') await ensureDatabase(url)
  for (const name of wanted.length ? wanted : Object.keys(MIGRATIONS)) {
    const applied = await MIGRATIONS[name]!(url)
    console.log(`${name}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`)
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exit(1)
})
