import type { Knex } from '@roost/db'
import type { AccountRow } from '../db/rows'
import type { Federation } from './transport/client'
import { FetchError } from './transport/client'
import { domainBlockFor, isDomainBlocked, isUrlBlocked } from './domain-blocks'
import { emojiTagsOf, refreshAccountEmojis, storeRemoteEmojis } from '../domain/custom_emojis'
import * as outbox from '../outbox/outbox'
import { sanitizeHtml } from './inbox/sanitize'
import { fieldsToVerify } from './profile-links'
import { ed25519FromMultibase } from './integrity/proofs'

/**
 * Remote accounts (docs/federation.md, "Remote accounts"): actors of other servers, stored in the `accounts`
 * table with their `domain`, as Mastodon's ActivityPub::ProcessAccountService stores them. Found by WebFinger
 * (`user@host`) or by their ActivityPub id, fetched through the outbound client, refreshed when a day old.
 */

const ACTOR_TYPES = new Set(['Person', 'Service', 'Group', 'Application', 'Organization'])
/** A remote profile is fetched again when older than this (Mastodon's `possibly_stale?`). */
export const STALE_AFTER_MS = 24 * 3600_000
/** Remote usernames: anything a `user@host` address can carry (Mastodon's remote USERNAME_RE is looser still). */
const REMOTE_USERNAME = /^[\p{L}\p{N}_.-]{1,2048}$/u
const MAX_TEXT = 100_000

/** Why a remote actor or address was refused; the message is for logs and 4xx answers. */
export class RemoteAccountError extends Error {}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
/** A property that is a URL string, or an object (Link) with an `id`/`href`; only http(s). */
function uriOf(v: unknown): string | undefined {
  const s =
    typeof v === 'string' ? v : v && typeof v === 'object' ? str((v as { id?: unknown }).id) : undefined
  if (!s) return undefined
  try {
    const u = new URL(s)
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined
  } catch {
    return undefined
  }
}
const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)
const imageUrl = (v: unknown) => {
  const image = first(v)
  if (typeof image === 'string') return uriOf(image)
  if (image && typeof image === 'object') return uriOf(first((image as { url?: unknown }).url))
  return undefined
}

/** `host[:port]` of a URL, lower-cased: the `domain` of the accounts it holds. */
export const domainOf = (uri: string) => new URL(uri).host.toLowerCase()

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }
/**
 * HTML from another server as the plain text Roost stores (local notes and fields are plain text, turned into
 * HTML when shown): paragraphs and line breaks kept, every tag dropped, entities decoded. Nothing the peer wrote
 * reaches clients as markup.
 */
export function htmlToText(html: string): string {
  return html
    .slice(0, MAX_TEXT)
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ''
      }
      return ENTITIES[e.toLowerCase()] ?? m
    })
    .trim()
}

/**
 * The actor's Ed25519 `assertionMethod` Multikeys (FEP-521a), which verify FEP-8b32 proofs: those it controls, on
 * its host, whose `publicKeyMultibase` is an Ed25519 key; at most 10.
 */
function assertionKeysOf(json: Record<string, unknown>, uri: string) {
  const methods = Array.isArray(json.assertionMethod) ? json.assertionMethod : [json.assertionMethod]
  return methods
    .filter(
      (m): m is { id: string; controller?: unknown; publicKeyMultibase: string } =>
        !!m &&
        typeof m === 'object' &&
        typeof (m as { id?: unknown }).id === 'string' &&
        typeof (m as { publicKeyMultibase?: unknown }).publicKeyMultibase === 'string' &&
        ((m as { controller?: unknown }).controller === undefined ||
          (m as { controller?: unknown }).controller === uri),
    )
    .filter(
      (m) => uriOf(m.id) && domainOf(m.id) === domainOf(uri) && ed25519FromMultibase(m.publicKeyMultibase),
    )
    .slice(0, 10)
    .map((m) => ({ id: m.id, publicKeyMultibase: m.publicKeyMultibase }))
}

/** The columns of an actor document, checked as Mastodon checks it; throws RemoteAccountError. */
export function parseActor(json: Record<string, unknown>) {
  const uri = uriOf(json.id)
  if (!uri) throw new RemoteAccountError('The actor has no id')
  if (typeof json.type !== 'string' || !ACTOR_TYPES.has(json.type))
    throw new RemoteAccountError(`${uri} is not an actor`)
  const username = str(json.preferredUsername)
  // An instance actor is named after its domain, which may carry a port (Mastodon's and Roost's `/actor`).
  if (!username || !(REMOTE_USERNAME.test(username) || username.toLowerCase() === domainOf(uri)))
    throw new RemoteAccountError(`${uri} has no usable preferredUsername`)
  const inbox = uriOf(json.inbox)
  if (!inbox) throw new RemoteAccountError(`${uri} has no inbox`)
  const key = first(json.publicKey) as Record<string, unknown> | undefined
  const publicKey = key && typeof key === 'object' ? str(key.publicKeyPem) : undefined
  const publicKeyId = key && typeof key === 'object' ? uriOf(key.id) : undefined
  if (key && typeof key === 'object' && key.owner !== undefined && uriOf(key.owner) !== uri)
    throw new RemoteAccountError(`The key of ${uri} belongs to another actor`)
  const sameHost = (u: string | undefined) => (u && domainOf(u) === domainOf(uri) ? u : undefined)
  const endpoints = json.endpoints as Record<string, unknown> | undefined
  const fields = (Array.isArray(json.attachment) ? json.attachment : [])
    .filter(
      (a): a is { name: string; value: string } =>
        !!a && a.type === 'PropertyValue' && typeof a.name === 'string' && typeof a.value === 'string',
    )
    .slice(0, 16)
    // The value keeps its links, sanitised as Mastodon's MASTODON_STRICT (docs/federation.md, "Profile fields").
    .map((a) => ({
      name: htmlToText(a.name).slice(0, 255),
      value: sanitizeHtml(a.value.trim().slice(0, 2047)),
      verified_at: null as string | null,
    }))
  const published = str(json.published) ? new Date(str(json.published)!) : undefined
  return {
    uri,
    domain: domainOf(uri),
    username,
    display_name: (str(json.name) ?? '').slice(0, 1000),
    note: htmlToText(str(json.summary) ?? ''),
    url: uriOf(first(json.url)) ?? uri,
    inbox_url: sameHost(inbox) ?? inbox,
    shared_inbox_url:
      endpoints && typeof endpoints === 'object' ? (uriOf(endpoints.sharedInbox) ?? null) : null,
    outbox_url: uriOf(json.outbox) ?? null,
    followers_url: uriOf(json.followers) ?? null,
    following_url: uriOf(json.following) ?? null,
    featured_url: uriOf(json.featured) ?? null,
    featured_tags_url: uriOf(json.featuredTags) ?? null,
    // The aliases a Move to this account needs (docs/federation.md, "Moved accounts").
    also_known_as: JSON.stringify(
      (Array.isArray(json.alsoKnownAs) ? json.alsoKnownAs : json.alsoKnownAs ? [json.alsoKnownAs] : [])
        .flatMap((a) => uriOf(a) ?? [])
        .slice(0, 20),
    ),
    actor_type: json.type,
    bot: json.type === 'Service' || json.type === 'Application',
    locked: json.manuallyApprovesFollowers === true,
    discoverable: json.discoverable === true,
    indexable: json.indexable === true,
    public_key: publicKey ?? null,
    public_key_id: publicKey ? (publicKeyId ?? `${uri}#main-key`) : null,
    // Its Ed25519 keys, which verify the integrity proofs of what it signs (docs/federation.md, "Forwarded activities").
    assertion_keys: JSON.stringify(assertionKeysOf(json, uri)),
    avatar_remote_url: imageUrl(json.icon) ?? null,
    header_remote_url: imageUrl(json.image) ?? null,
    fields: JSON.stringify(fields),
    ...(published && !Number.isNaN(published.getTime()) ? { created_at: published } : {}),
  }
}

/**
 * Stores an actor (a new account, or the same `uri`'s row updated) and returns the row. The actor's id must be on
 * the host it was fetched from (`fetchedFrom`), so no server can speak for another's accounts.
 */
export async function storeActor(
  db: Knex,
  json: Record<string, unknown>,
  fetchedFrom?: string,
): Promise<AccountRow> {
  const actor = parseActor(json)
  if (fetchedFrom && domainOf(fetchedFrom) !== actor.domain)
    throw new RemoteAccountError(`${fetchedFrom} served an actor of another host (${actor.uri})`)
  // An admin domain block (docs/federation.md, "Domain blocks"): with reject_media the host's images are not
  // linked (clients would fetch them), and a new account of a silenced host is silenced from the start.
  const block = await domainBlockFor(db, actor.domain)
  if (block?.reject_media || block?.severity === 'suspend')
    Object.assign(actor, { avatar_remote_url: null, header_remote_url: null })
  // A field whose value did not change keeps its verification (Mastodon's Account#fields_attributes=).
  const fields = JSON.parse(actor.fields) as AccountRow['fields']
  if (fields.length) {
    const before = await db('accounts').where({ uri: actor.uri }).first('fields')
    for (const f of fields)
      f.verified_at =
        before?.fields.find((b: AccountRow['fields'][number]) => b.value === f.value)?.verified_at ?? null
    actor.fields = JSON.stringify(fields)
  }
  const columns = { ...actor, fetched_at: db.fn.now(), updated_at: db.fn.now() }
  const row = await writeActor(db, columns, block)
  if (fieldsToVerify(fields, false, true).length && !row.suspended_at)
    await outbox.add(db, { event: 'account.links_changed', accountId: row.id })
  // Its custom emojis (docs/emoji.md): stored for the worker to copy, and those already copied shown at once.
  if (!block?.reject_media && block?.severity !== 'suspend') {
    const tags = emojiTagsOf(json)
    if (tags.length) await db.transaction((trx) => storeRemoteEmojis(trx, actor.domain, tags))
  }
  await refreshAccountEmojis(db, row.id, row.domain, row)
  return { ...row, emojis: (await db('accounts').where({ id: row.id }).first('emojis')).emojis }
}

async function writeActor(
  db: Knex,
  columns: ReturnType<typeof parseActor> & Record<string, unknown>,
  block: Awaited<ReturnType<typeof domainBlockFor>>,
): Promise<AccountRow> {
  const actor = columns
  const update = async () => {
    const { created_at: _created, ...changes } = columns
    const [row] = await db('accounts').where({ uri: actor.uri }).update(changes).returning('*')
    return row as AccountRow | undefined
  }
  const updated = await update()
  if (updated) return updated
  try {
    const silenced = block?.severity === 'silence' ? { silenced_at: block.created_at } : {}
    // A new account's newest posts are read by the worker (docs/federation.md, "Backfill of remote profiles").
    return await db.transaction(async (trx) => {
      const [row] = await trx('accounts')
        .insert({ ...columns, ...silenced })
        .returning('*')
      if (row.outbox_url && !row.suspended_at)
        await outbox.add(trx, { event: 'fetch.outbox', accountId: row.id })
      return row as AccountRow
    })
  } catch (err) {
    // Another request stored it first (the unique uri index): update that row instead.
    if ((err as { code?: string }).code === '23505') {
      const row = await update()
      if (row) return row
    }
    throw err
  }
}

/** The stored remote account with this ActivityPub id, if any. */
export const findByUri = (db: Knex, uri: string): Promise<AccountRow | undefined> =>
  db('accounts').where({ uri }).whereNotNull('domain').first()

/**
 * The account of an ActivityPub id: stored, or fetched and stored (again when `refresh`, or when a day old).
 * A fetch that fails leaves a stored account as it was.
 */
export async function resolveActor(
  fed: Federation,
  uri: string,
  options: { refresh?: boolean } = {},
): Promise<AccountRow> {
  const known = await findByUri(fed.db, uri)
  const stale = !known?.fetched_at || Date.now() - new Date(known.fetched_at).getTime() > STALE_AFTER_MS
  if (known && !options.refresh && !stale) return known
  try {
    return await fetchActor(fed, uri)
  } catch (err) {
    if (known && !options.refresh) return known
    throw err
  }
}

async function fetchActor(fed: Federation, uri: string): Promise<AccountRow> {
  checkScheme(fed, uri)
  if (await isUrlBlocked(fed.db, uri)) throw new RemoteAccountError(`${new URL(uri).host} is suspended`)
  let json = await fed.fetchJson(uri)
  // A key id (`…#main-key`, or a separate Key document) leads to its owner.
  if (!ACTOR_TYPES.has(String(json.type)) && uriOf(json.owner)) {
    const owner = uriOf(json.owner)!
    if (domainOf(owner) !== domainOf(uri))
      throw new RemoteAccountError(`${uri} names an owner on another host`)
    json = await fed.fetchJson(owner)
  }
  return storeActor(fed.db, json, uri)
}

function checkScheme(fed: Federation, uri: string) {
  const u = new URL(uri)
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && fed.allowHttp))
    throw new RemoteAccountError(`${u.protocol} actors are not allowed`)
}

/** `user@host` (a leading `@` and `acct:` allowed), split; undefined when it is not such an address. */
export function parseAcct(acct: string): { username: string; domain: string } | undefined {
  const m = /^(?:acct:)?@?([^@\s/]+)@([a-z0-9.-]+(?::\d{1,5})?)$/i.exec(acct.trim())
  if (!m || !REMOTE_USERNAME.test(m[1]!)) return undefined
  return { username: m[1]!, domain: m[2]!.toLowerCase() }
}

/** The stored account of `user@domain` (any case), if any. */
export const findByAcct = (db: Knex, username: string, domain: string): Promise<AccountRow | undefined> =>
  db('accounts')
    .whereRaw('lower(username) = lower(?) AND lower(domain) = lower(?)', [username, domain])
    .first()

/**
 * Mastodon's ResolveAccountService: `user@domain` by WebFinger (`/.well-known/webfinger?resource=acct:…` on the
 * domain, over https; http with FEDERATION_ALLOW_HTTP), then its `self` actor, stored under the domain the
 * WebFinger subject names. A stored account younger than a day is answered without asking.
 */
export async function resolveAcct(fed: Federation, username: string, domain: string): Promise<AccountRow> {
  const known = await findByAcct(fed.db, username, domain)
  if (known?.fetched_at && Date.now() - new Date(known.fetched_at).getTime() < STALE_AFTER_MS) return known
  if (await isDomainBlocked(fed.db, domain)) throw new RemoteAccountError(`${domain} is suspended`)
  try {
    const scheme = fed.allowHttp ? 'http' : 'https'
    const jrd = await fed.fetchPlainJson(
      `${scheme}://${domain}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${username}@${domain}`)}`,
    )
    const links = Array.isArray(jrd.links) ? (jrd.links as Record<string, unknown>[]) : []
    const self = links.find(
      (l) =>
        l &&
        l.rel === 'self' &&
        typeof l.type === 'string' &&
        (l.type.startsWith('application/activity+json') || l.type.startsWith('application/ld+json')),
    )
    const href = self ? uriOf(self.href) : undefined
    if (!href) throw new RemoteAccountError(`${username}@${domain} has no ActivityPub actor`)
    const subject = parseAcct(str(jrd.subject) ?? '')
    const account = await fetchActor(fed, href)
    const acctDomain = subject?.domain ?? domain
    if (account.domain !== acctDomain) {
      // The address's domain differs from the actor's host (Mastodon's LOCAL_DOMAIN/WEB_DOMAIN split).
      const [row] = await fed
        .db('accounts')
        .where({ id: account.id })
        .update({ domain: acctDomain })
        .returning('*')
      return row as AccountRow
    }
    return account
  } catch (err) {
    if (known) return known
    throw err
  }
}

export { FetchError }
