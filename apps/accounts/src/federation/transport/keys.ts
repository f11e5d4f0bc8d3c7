import { generateKeyPair } from 'node:crypto'
import { promisify } from 'node:util'
import type { Knex } from '@roost/db'

const generate = promisify(generateKeyPair)

export interface KeyPair {
  publicKey: string
  privateKey: string
}

/**
 * A new RSA key pair for HTTP signatures: 2048 bits as Mastodon's, PEM-encoded (SPKI public, PKCS#8 private).
 * Generation runs on libuv's thread pool, so it does not hold up the event loop.
 */
export async function generateRsaKeyPair(): Promise<KeyPair> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  return { publicKey, privateKey }
}

/**
 * The key pair of a local account. Sign-up makes one (users/sign-up.ts, the CLI); accounts made before
 * federation, or straight in the database, get theirs here on first need. Two callers racing both generate; the
 * first to store wins and both return what was stored.
 */
export function localKeyPair(db: Knex, accountId: string): Promise<KeyPair> {
  const cache = localKeysByDatabase.get(db)
  const cached = cache?.get(accountId)
  if (cached) {
    // Most recently used last, so that the oldest is the first to go.
    cache!.delete(accountId)
    cache!.set(accountId, cached)
    return Promise.resolve(cached)
  }
  return once(db, `account:${accountId}`, async () => {
    const keys = await loadOrMakeLocalKeyPair(db, accountId)
    let own = localKeysByDatabase.get(db)
    if (!own) localKeysByDatabase.set(db, (own = new Map()))
    own.set(accountId, keys)
    if (own.size > LOCAL_KEYS_CACHED) own.delete(own.keys().next().value!)
    return keys
  })
}

/**
 * Local key pairs already read, per process (docs/performance.md, "Write path"): a local account's key pair
 * never changes once stored (the first to store wins, and every process returns what was stored), so a post's Linked
 * Data signature and its deliveries' HTTP signatures read it once per process rather than once each. A deleted
 * account is never signed for: its callers read the account first. The least recently used go past the bound.
 */
const LOCAL_KEYS_CACHED = 1000
const localKeysByDatabase = new WeakMap<Knex, Map<string, KeyPair>>()

/**
 * Key generation is costly (tens of milliseconds of CPU): requests arriving together for the same key in one
 * process share one look-up and at most one generation.
 */
const pendingByDatabase = new WeakMap<Knex, Map<string, Promise<KeyPair>>>()
function once(db: Knex, key: string, work: () => Promise<KeyPair>): Promise<KeyPair> {
  let pending = pendingByDatabase.get(db)
  if (!pending) pendingByDatabase.set(db, (pending = new Map()))
  let p = pending.get(key)
  if (!p) {
    const own = pending
    p = work().finally(() => own.delete(key))
    pending.set(key, p)
  }
  return p
}

async function loadOrMakeLocalKeyPair(db: Knex, accountId: string): Promise<KeyPair> {
  const row = await db('accounts')
    .where({ id: accountId })
    .whereNull('domain')
    .first('public_key', 'private_key')
  if (!row) throw new Error(`no local account ${accountId}`)
  if (row.public_key && row.private_key) return { publicKey: row.public_key, privateKey: row.private_key }
  const made = await generateRsaKeyPair()
  await db('accounts')
    .where({ id: accountId })
    .whereNull('private_key')
    .update({ public_key: made.publicKey, private_key: made.privateKey })
  const stored = await db('accounts').where({ id: accountId }).first('public_key', 'private_key')
  return { publicKey: stored.public_key, privateKey: stored.private_key }
}

/** The instance actor's key pair (`/actor`), made on first need. */
export function instanceKeyPair(db: Knex): Promise<KeyPair> {
  return once(db, 'instance', () => loadOrMakeInstanceKeyPair(db))
}

async function loadOrMakeInstanceKeyPair(db: Knex): Promise<KeyPair> {
  const row = await db('instance_actor').where({ id: 1 }).first('public_key', 'private_key')
  if (row) return { publicKey: row.public_key, privateKey: row.private_key }
  const made = await generateRsaKeyPair()
  await db('instance_actor')
    .insert({ id: 1, public_key: made.publicKey, private_key: made.privateKey })
    .onConflict('id')
    .ignore()
  const stored = await db('instance_actor').where({ id: 1 }).first('public_key', 'private_key')
  return { publicKey: stored.public_key, privateKey: stored.private_key }
}
