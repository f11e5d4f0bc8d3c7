import { randomBytes } from 'node:crypto'
import { createDatabase } from '@roost/db'
import { SCHEMA } from '../../apps/accounts/src/service'
import { createUser } from '../../apps/accounts/src/domain/users'
import { hashPassword } from '../../apps/accounts/src/domain/password-hashes'

/**
 * Makes sure the instance has its admin (ROOST_ADMIN_USERNAME, default `admin`). Returns the password only when
 * it was generated now, so it can be shown once; an existing admin is left as it is.
 */
export async function ensureAdmin(
  databaseUrl: string,
  env: Record<string, string | undefined>,
): Promise<{ username: string; email: string; generatedPassword?: string; created: boolean }> {
  const username = env.ROOST_ADMIN_USERNAME || 'admin'
  const email = env.ROOST_ADMIN_EMAIL || `${username}@localhost`
  const db = createDatabase(databaseUrl, SCHEMA, { min: 0, max: 1 })
  try {
    const existing = await db('accounts').whereRaw('lower(username) = lower(?)', [username]).first()
    if (existing) return { username, email, created: false }
    const generatedPassword = env.ROOST_ADMIN_PASSWORD ? undefined : randomBytes(12).toString('base64url')
    const encryptedPassword = await hashPassword(env.ROOST_ADMIN_PASSWORD || generatedPassword!)
    await db.transaction((trx) => createUser(trx, { username, email, encryptedPassword, role: 'admin' }))
    return { username, email, generatedPassword, created: true }
  } finally {
    await db.destroy()
  }
}
