import { randomBytes } from 'node:crypto'
import yazl from 'yazl'
import type { Knex } from '@roost/db'
import { DomainError } from '@roost/errors'
import { accountDataJob, processor } from '@roost/events'
import type { Logger } from '@roost/service'
import type { AccountRow, ArchiveRow, ImportRow, StatusRow } from '../db/rows'
import { blockDomain, unblockDomain } from '../domain/account_extras'
import { ARCHIVE_TTL_MS } from '../domain/archives'
import { unfavourite } from '../domain/favourites'
import { addToList, createList } from '../domain/lists'
import * as relationships from '../domain/relationships'
import { deleteStatus } from '../domain/statuses'
import type { Urls } from '../entities/account'
import { renderActor } from '../federation/render/actor'
import { renderOutboxItem } from '../federation/render/activities'
import { AS, NOTE_CONTEXT } from '../federation/render/contexts'
import { renderNotes } from '../federation/render/note'
import { findByAcct, parseAcct, resolveAcct } from '../federation/remote-accounts'
import type { Federation } from '../federation/transport/client'
import type { Deliver } from '../federation/transport/delivery-queue'
import { localKeyPair } from '../federation/transport/keys'
import { actorUri, objectUriOf, statusUri } from '../federation/uris'
import type { MediaFiles } from '../media/files'
import * as outbox from '../outbox/outbox'

/**
 * The `account-data` queue's processor (docs/security.md, "Your data" and "Leaving"): archives (Mastodon's
 * BackupService), CSV imports (BulkImportService and Import::RowService) and the deletion of an account by its
 * owner (DeleteAccountService). Each job can be run again: it reads its row and does what is left.
 */
export interface AccountDataDeps {
  db: Knex
  files: MediaFiles
  federation: Federation
  deliver: Deliver
  urls: Urls
  logger: Logger
  followCeiling: relationships.FollowCeiling
}

export const accountDataProcessor = (d: AccountDataDeps) =>
  processor({
    schema: accountDataJob,
    async process(data, job) {
      if (data.event === 'archive.requested') return buildArchive(d, data.archiveId)
      if (data.event === 'import.requested')
        return processImport(d, data.importId, (p) => void job.updateProgress(p).catch(() => {}))
      return deleteAccountData(d, data.accountId)
    },
    concurrency: 2,
  })

// ---------------------------------------------------------------------------------------------------------------
// Archives

/** A zip of buffers, in memory (an archive holds one account's posts and media). */
function zip(entries: { name: string; data: Buffer }[]): Promise<Buffer> {
  const file = new yazl.ZipFile()
  for (const e of entries) file.addBuffer(e.data, e.name)
  file.end()
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    file.outputStream.on('data', (c: Buffer) => chunks.push(c))
    file.outputStream.on('error', reject)
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
  })
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2))

/** Path of a media file inside the archive, as the Notes of outbox.json name it. */
const mediaPath = (name: string) => `media_attachments/files/${name}`

/**
 * Mastodon's BackupService: `outbox.json` (every post of the account, public or not, as the Create of its Note or
 * the Announce of a boost), `actor.json` (its profile, pointing at the files beside it), `likes.json` and
 * `bookmarks.json` (collections of the statuses' ActivityPub ids), the avatar, header and every attached media file,
 * their URLs in the JSON rewritten to the paths inside the zip.
 */
async function buildArchive(d: AccountDataDeps, archiveId: string) {
  const archive: ArchiveRow | undefined = await d.db('archives').where({ id: archiveId }).first()
  if (!archive || archive.state !== 'pending') return 'nothing to do'
  const user = await d.db('users').where({ id: archive.user_id }).first()
  const account: AccountRow | undefined =
    user && (await d.db('accounts').where({ id: user.account_id }).first())
  if (!account) return 'gone'
  try {
    const entries: { name: string; data: Buffer }[] = []
    const mediaBase = `${d.urls.media}/`
    const files = new Set<string>()
    /** Rewrites a media URL of ours to its path in the zip, noting the file to add. */
    const local = (url: unknown) => {
      if (typeof url !== 'string' || !url.startsWith(mediaBase)) return url
      const name = url.slice(mediaBase.length)
      files.add(name)
      return mediaPath(name)
    }
    const items: unknown[] = []
    let after = '0'
    for (;;) {
      const rows: StatusRow[] = await d
        .db('statuses')
        .where({ account_id: account.id })
        .where('id', '>', after)
        .orderBy('id')
        .limit(200)
      if (!rows.length) break
      after = rows.at(-1)!.id
      const notes = await renderNotes(d.db, d.urls, rows, { accounts: [account] })
      for (const status of rows) {
        if (status.reblog_of_id) {
          const original: StatusRow | undefined = await d
            .db('statuses')
            .where({ id: status.reblog_of_id })
            .first()
          const author: AccountRow | undefined =
            original && (await d.db('accounts').where({ id: original.account_id }).first())
          if (original && author)
            items.push(renderOutboxItem(d.urls, account, status, objectUriOf(d.urls, original, author)))
          continue
        }
        const note = notes.get(status.id)
        if (!note) continue
        const attachments = (note as { attachment?: Record<string, unknown>[] }).attachment ?? []
        for (const a of attachments) a.url = local(a.url)
        items.push(renderOutboxItem(d.urls, account, status, note))
      }
    }
    const actorId = actorUri(d.urls, account.username)
    entries.push({
      name: 'outbox.json',
      data: json({
        '@context': NOTE_CONTEXT,
        id: 'outbox.json',
        type: 'OrderedCollection',
        totalItems: items.length,
        orderedItems: items,
      }),
    })
    const keys = await localKeyPair(d.db, account.id)
    const actor = renderActor(account, keys.publicKey, d.urls, d.federation.localDomain) as Record<
      string,
      unknown
    >
    for (const key of ['icon', 'image']) {
      const image = actor[key] as { url?: unknown } | undefined
      if (image?.url) image.url = local(image.url)
    }
    Object.assign(actor, { outbox: 'outbox.json', likes: 'likes.json', bookmarks: 'bookmarks.json' })
    entries.push({ name: 'actor.json', data: json(actor) })
    const uris = async (table: 'favourites' | 'bookmarks') => {
      const rows: (StatusRow & { author_username: string; author_uri: string | null })[] = await d
        .db(table)
        .join('statuses', 'statuses.id', `${table}.status_id`)
        .join('accounts', 'accounts.id', 'statuses.account_id')
        .where(`${table}.account_id`, account.id)
        .orderBy(`${table}.id`, 'desc')
        .select(
          'statuses.id',
          'statuses.uri',
          'accounts.username as author_username',
          'accounts.uri as author_uri',
        )
      return rows.map((r) => r.uri ?? (r.author_uri ? r.uri! : statusUri(d.urls, r.author_username, r.id)))
    }
    for (const [name, table] of [
      ['likes.json', 'favourites'],
      ['bookmarks.json', 'bookmarks'],
    ] as const) {
      const ids = await uris(table)
      entries.push({
        name,
        data: json({
          '@context': AS,
          id: name,
          type: 'OrderedCollection',
          totalItems: ids.length,
          orderedItems: ids,
        }),
      })
    }
    for (const name of files) {
      const data = await d.files.read(name)
      if (data) entries.push({ name: mediaPath(name), data })
    }
    const data = await zip(entries)
    const file = `${randomBytes(16).toString('hex')}.zip`
    await d.files.put(file, data, 'application/zip')
    await d
      .db('archives')
      .where({ id: archiveId })
      .update({ state: 'done', file, size: data.length, finished_at: d.db.fn.now() })
    d.logger.info(
      { archiveId, bytes: data.length, posts: items.length, files: files.size, actor: actorId },
      'archive built',
    )
    return 'done'
  } catch (err) {
    d.logger.warn({ err, archiveId }, 'archive failed')
    await d.db('archives').where({ id: archiveId }).update({ state: 'failed', finished_at: d.db.fn.now() })
    return 'failed'
  }
}

/** The archives older than a week, removed with their files (the daily media cleanup calls it). */
export async function removeExpiredArchives(db: Knex, files: MediaFiles): Promise<number> {
  const old: ArchiveRow[] = await db('archives').where(
    'created_at',
    '<',
    new Date(Date.now() - ARCHIVE_TTL_MS),
  )
  for (const a of old) {
    if (a.file) await files.remove(a.file)
    await db('archives').where({ id: a.id }).delete()
  }
  return old.length
}

// ---------------------------------------------------------------------------------------------------------------
// Imports

class RowError extends Error {}

/** Rows applied per transaction, and per update of the import's progress. */
const IMPORT_BATCH = 50

/**
 * The account an address names (Import::RowService's `ResolveAccountService`): a local one by username when its
 * domain is ours, else the stored remote account, else found through WebFinger (federation/remote-accounts.ts).
 */
async function accountOfAcct(d: AccountDataDeps, acct: unknown): Promise<AccountRow> {
  const text = typeof acct === 'string' ? acct.trim() : ''
  const parsed = parseAcct(text)
  const local = d.federation.localDomain
  if (!parsed || parsed.domain === local) {
    const username = parsed ? parsed.username : text
    const row: AccountRow | undefined = /^[A-Za-z0-9_]+$/.test(username)
      ? await d
          .db('accounts')
          .whereRaw('lower(username) = lower(?)', [username])
          .whereNull('domain')
          .whereNull('suspended_at')
          .first()
      : undefined
    if (!row)
      throw new RowError(
        parsed || /^[A-Za-z0-9_]+$/.test(username) ? 'No such account' : 'Not an account address',
      )
    return row
  }
  const known = await findByAcct(d.db, parsed.username, parsed.domain)
  if (known && !known.suspended_at) return known
  if (!d.federation.enabled) throw new RowError('No such account (federation is off)')
  try {
    return await resolveAcct(d.federation, parsed.username, parsed.domain)
  } catch (err) {
    throw new RowError(`Could not be found on ${parsed.domain}: ${(err as Error).message}`)
  }
}

/** A status by its ActivityPub id: a stored remote one, or one of ours. */
async function statusOfUri(d: AccountDataDeps, uri: unknown): Promise<StatusRow> {
  if (typeof uri !== 'string' || !uri) throw new RowError('Not a status address')
  const remote: StatusRow | undefined = await d.db('statuses').where({ uri }).first()
  if (remote) return remote
  const prefix = `${d.urls.base}/users/`
  const m = uri.startsWith(prefix)
    ? /^([A-Za-z0-9_]+)\/statuses\/(\d{1,19})$/.exec(uri.slice(prefix.length))
    : null
  const local: StatusRow | undefined = m
    ? await d
        .db('statuses')
        .join('accounts', 'accounts.id', 'statuses.account_id')
        .where('statuses.id', m[2])
        .whereNull('accounts.domain')
        .whereRaw('lower(accounts.username) = lower(?)', [m[1]])
        .first('statuses.*')
    : undefined
  if (!local) throw new RowError('This status is not known to this server')
  return local
}

/** Mastodon's Import::RowService for one row, in the caller's transaction. */
async function applyRow(
  d: AccountDataDeps,
  trx: Knex,
  me: AccountRow,
  type: ImportRow['type'],
  row: Record<string, unknown>,
) {
  switch (type) {
    case 'following': {
      const target = await accountOfAcct(d, row.acct)
      if (target.id === me.id) throw new RowError('You cannot follow yourself')
      await relationships.follow(
        trx,
        me,
        target,
        {
          reblogs: typeof row.show_reblogs === 'boolean' ? row.show_reblogs : undefined,
          notify: typeof row.notify === 'boolean' ? row.notify : undefined,
          languages: Array.isArray(row.languages) ? (row.languages as string[]) : undefined,
        },
        d.followCeiling,
      )
      return
    }
    case 'blocking':
      return relationships.block(trx, me.id, (await accountOfAcct(d, row.acct)).id)
    case 'muting':
      // MuteService: notifications are hidden unless the row says otherwise.
      return relationships.mute(
        trx,
        me.id,
        (await accountOfAcct(d, row.acct)).id,
        row.hide_notifications !== false,
        0,
      )
    case 'domain_blocking':
      return blockDomain(trx, me.id, typeof row.domain === 'string' ? row.domain : undefined)
    case 'bookmarks': {
      const status = await statusOfUri(d, row.uri)
      await trx('bookmarks')
        .insert({ account_id: me.id, status_id: status.id })
        .onConflict(['account_id', 'status_id'])
        .ignore()
      return
    }
    case 'lists': {
      const title = typeof row.list_name === 'string' ? row.list_name.trim() : ''
      if (!title) throw new RowError('The list has no name')
      const target = await accountOfAcct(d, row.acct)
      const list =
        (await trx('lists').where({ account_id: me.id, title }).first()) ??
        (await createList(trx, me.id, { title }))
      // Import::RowService follows the account first: a list holds followed accounts only.
      if (target.id !== me.id) await relationships.follow(trx, me, target, {}, d.followCeiling)
      if (!(await trx('list_accounts').where({ list_id: list.id, account_id: target.id }).first('id')))
        await addToList(trx, list, [target.id])
    }
  }
}

/** The value a failed row is shown with. */
const rowValue = (row: Record<string, unknown>) =>
  [row.list_name, row.acct, row.domain, row.uri].filter((v) => typeof v === 'string' && v).join(' ')

/**
 * BulkImportService's overwrite: what the account has that the file does not is removed first (follows,
 * blocks, mutes, domain blocks, bookmarks; every list's members, and the lists the file does not name).
 */
async function overwrite(d: AccountDataDeps, trx: Knex, me: AccountRow, imp: ImportRow) {
  const local = d.federation.localDomain
  const accts = new Set(
    imp.rows.map((r) =>
      String(r.acct ?? '')
        .toLowerCase()
        .replace(new RegExp(`@${local.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`), ''),
    ),
  )
  const inFile = (a: { username: string; domain: string | null }) =>
    accts.has((a.domain ? `${a.username}@${a.domain}` : a.username).toLowerCase())
  const others = async (table: 'follows' | 'blocks' | 'mutes') =>
    (
      (await trx(table)
        .join('accounts', 'accounts.id', `${table}.target_account_id`)
        .where(`${table}.account_id`, me.id)
        .select('accounts.id', 'accounts.username', 'accounts.domain')) as {
        id: string
        username: string
        domain: string | null
      }[]
    ).filter((a) => !inFile(a))
  switch (imp.type) {
    case 'following':
      for (const a of await others('follows')) await relationships.unfollow(trx, me.id, a.id)
      return
    case 'blocking':
      for (const a of await others('blocks')) await relationships.unblock(trx, me.id, a.id)
      return
    case 'muting':
      for (const a of await others('mutes')) await relationships.unmute(trx, me.id, a.id)
      return
    case 'domain_blocking': {
      const keep = new Set(imp.rows.map((r) => String(r.domain ?? '')))
      const domains: string[] = await trx('account_domain_blocks')
        .where({ account_id: me.id })
        .pluck('domain')
      for (const domain of domains) if (!keep.has(domain)) await unblockDomain(trx, me.id, domain)
      return
    }
    case 'bookmarks': {
      const keep = new Set(imp.rows.map((r) => String(r.uri ?? '')))
      for (const { status, author } of await bookmarked(trx, me.id))
        if (!keep.has(objectUriOf(d.urls, status, author)))
          await trx('bookmarks').where({ account_id: me.id, status_id: status.id }).delete()
      return
    }
    case 'lists': {
      const titles = new Set(imp.rows.map((r) => String(r.list_name ?? '').trim()))
      const lists: { id: string; title: string }[] = await trx('lists').where({ account_id: me.id })
      for (const list of lists) {
        if (!titles.has(list.title)) await trx('lists').where({ id: list.id }).delete()
        else await trx('list_accounts').where({ list_id: list.id }).delete()
      }
    }
  }
}

async function bookmarked(db: Knex, accountId: string) {
  const rows: (StatusRow & {
    author_username: string
    author_domain: string | null
    author_uri: string | null
  })[] = await db('bookmarks')
    .join('statuses', 'statuses.id', 'bookmarks.status_id')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('bookmarks.account_id', accountId)
    .select(
      'statuses.*',
      'accounts.username as author_username',
      'accounts.domain as author_domain',
      'accounts.uri as author_uri',
    )
  return rows.map((r) => ({
    status: r,
    author: { username: r.author_username, domain: r.author_domain, uri: r.author_uri } as AccountRow,
  }))
}

/**
 * Applies an import's rows in order, IMPORT_BATCH per transaction, recording after each batch how far it got, how
 * many rows took and which failed (with why); a run after a crash starts at `processed_items`. A row that fails
 * (an unknown account, a server that does not answer, the follow ceiling) is reported and the import goes on.
 */
async function processImport(d: AccountDataDeps, importId: string, progress: (percent: number) => void) {
  const imp: ImportRow | undefined = await d.db('imports').where({ id: importId }).first()
  if (!imp || imp.state === 'finished') return 'nothing to do'
  const me: AccountRow | undefined = await d.db('accounts').where({ id: imp.account_id }).first()
  if (!me || me.suspended_at) {
    await d.db('imports').where({ id: importId }).update({ state: 'finished', finished_at: d.db.fn.now() })
    return 'account gone'
  }
  if (imp.state === 'queued') {
    await d.db.transaction(async (trx) => {
      if (imp!.overwrite) await overwrite(d, trx, me, imp!)
      await trx('imports').where({ id: importId }).update({ state: 'processing' })
    })
  }
  let { processed_items: done, imported_items: imported } = imp
  const failures = [...imp.failures]
  while (done < imp.rows.length) {
    const batch = imp.rows.slice(done, done + IMPORT_BATCH)
    let batchImported = 0
    const batchFailures: ImportRow['failures'] = []
    // Remote accounts are resolved outside the transaction (WebFinger can take seconds): applyRow asks for them
    // first, and its writes then run in one short transaction per row.
    for (const [i, row] of batch.entries()) {
      try {
        await d.db.transaction((trx) => applyRow(d, trx, me, imp!.type, row))
        batchImported++
      } catch (err) {
        if (!(err instanceof RowError) && !(err instanceof DomainError)) throw err
        batchFailures.push({ row: done + i + 1, value: rowValue(row), error: err.message })
      }
    }
    done += batch.length
    imported += batchImported
    failures.push(...batchFailures)
    await d
      .db('imports')
      .where({ id: importId })
      .update({ processed_items: done, imported_items: imported, failures: JSON.stringify(failures) })
    progress(Math.floor((done * 100) / imp.rows.length))
  }
  await d.db('imports').where({ id: importId }).update({ state: 'finished', finished_at: d.db.fn.now() })
  return 'finished'
}

// ---------------------------------------------------------------------------------------------------------------
// Deletion

/** Rows removed per transaction while an account is taken apart. */
const DELETION_BATCH = 100

/**
 * Mastodon's DeleteAccountService for a local account its owner deleted (reserve_username): the Delete of the actor
 * goes first to every server this one knows (the followers' and followed accounts' servers first, as Mastodon's
 * delivery_inboxes, then every other known inbox, its low-priority ones), signed with the account's key, which
 * stays; then the account's follows, favourites, statuses (with their media files), and every other row naming it
 * go, in short transactions; the user (its e-mail, tokens, invites, archives) is deleted; the account row stays,
 * emptied and suspended, so the username is never taken again.
 */
async function deleteAccountData(d: AccountDataDeps, accountId: string) {
  const account: AccountRow | undefined = await d
    .db('accounts')
    .where({ id: accountId })
    .whereNull('domain')
    .first()
  if (!account?.deleted_at) return 'not deleted'
  if (d.federation.enabled) {
    const actor = actorUri(d.urls, account.username)
    const activity = {
      '@context': AS,
      id: `${actor}#delete`,
      type: 'Delete',
      actor,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      object: actor,
    }
    // One account per inbox: inboxesOf (delivery-queue.ts) then picks the shared inbox of each.
    const first: AccountRow[] = await d
      .db('accounts')
      .whereNotNull('domain')
      .whereNotNull('inbox_url')
      .where((q) =>
        q
          .whereIn('id', d.db('follows').where({ target_account_id: accountId }).select('account_id'))
          .orWhereIn('id', d.db('follows').where({ account_id: accountId }).select('target_account_id')),
      )
    const { rows: rest } = await d.db.raw<{ rows: AccountRow[] }>(
      `SELECT DISTINCT ON (coalesce(shared_inbox_url, inbox_url)) * FROM accounts
        WHERE domain IS NOT NULL AND inbox_url IS NOT NULL AND suspended_at IS NULL
        ORDER BY coalesce(shared_inbox_url, inbox_url)`,
    )
    const everyone = [...first, ...rest]
    if (everyone.length) await d.deliver(activity, accountId, everyone, `account-delete-${accountId}`)
  }
  // Each change made here reaches other servers through the Delete above, not activity by activity.
  const quiet = { fromPeer: true }
  for (;;) {
    // True once a transaction found less than a batch to do: nothing of these is left.
    const finished = await d.db.transaction(async (trx: Knex) => {
      let room = DELETION_BATCH
      const step = async <T>(rows: T[], each: (row: T) => Promise<unknown>) => {
        for (const row of rows) await each(row)
        room -= rows.length
        return room > 0
      }
      return (
        (await step(
          await trx('follows').where({ account_id: accountId }).limit(room).pluck('target_account_id'),
          (id: string) => relationships.unfollow(trx, accountId, id, quiet),
        )) &&
        (await step(
          await trx('follows').where({ target_account_id: accountId }).limit(room).pluck('account_id'),
          (id: string) => relationships.unfollow(trx, id, accountId, quiet),
        )) &&
        (await step(
          await trx('follow_requests')
            .where({ account_id: accountId })
            .limit(room)
            .pluck('target_account_id'),
          (id: string) => relationships.unfollow(trx, accountId, id, quiet),
        )) &&
        (await step(
          await trx('follow_requests')
            .where({ target_account_id: accountId })
            .limit(room)
            .pluck('account_id'),
          (id: string) => relationships.deleteFollowRequest(trx, id, accountId, 'rejected', quiet),
        )) &&
        (await step(
          await trx('statuses')
            .join('favourites', 'favourites.status_id', 'statuses.id')
            .where('favourites.account_id', accountId)
            .limit(room)
            .select('statuses.*'),
          (status: StatusRow) => unfavourite(trx, accountId, status),
        )) &&
        (await step(
          await trx('statuses').where({ account_id: accountId }).orderBy('id', 'desc').limit(room),
          async (status: StatusRow) => {
            if (await trx('statuses').where({ id: status.id }).first('id')) await deleteStatus(trx, status)
          },
        ))
      )
    })
    if (finished) break
  }
  // Media files, through MediaFiles (local directory or bucket), then their rows.
  for (;;) {
    const media: {
      id: string
      file: string | null
      preview_file: string | null
      thumbnail_file: string | null
    }[] = await d
      .db('media_attachments')
      .where({ account_id: accountId })
      .limit(DELETION_BATCH)
      .select('id', 'file', 'preview_file', 'thumbnail_file')
    if (!media.length) break
    for (const m of media)
      for (const f of [m.file, m.preview_file, m.thumbnail_file]) if (f) await d.files.remove(f)
    await d
      .db('media_attachments')
      .whereIn(
        'id',
        media.map((m) => m.id),
      )
      .delete()
  }
  for (const f of [account.avatar_file, account.header_file]) if (f) await d.files.remove(f)
  const user = await d.db('users').where({ account_id: accountId }).first('id')
  if (user) {
    const archives: ArchiveRow[] = await d.db('archives').where({ user_id: user.id })
    for (const a of archives) if (a.file) await d.files.remove(a.file)
  }
  await d.db.transaction(async (trx) => {
    const mine = (table: string, column = 'account_id') => trx(table).where(column, accountId).delete()
    for (const table of [
      'bookmarks',
      'conversation_mutes',
      'poll_votes',
      'lists',
      'list_accounts',
      'announcement_mutes',
      'announcement_reactions',
      'scheduled_statuses',
      'tag_follows',
      'account_conversations',
      'account_domain_blocks',
      'custom_filters',
      'featured_tags',
      'mentions',
      'imports',
      'status_pins',
    ])
      await mine(table)
    for (const table of ['blocks', 'mutes', 'account_notes', 'account_pins', 'suggestion_dismissals']) {
      await mine(table)
      await mine(table, 'target_account_id')
    }
    await mine('notifications')
    await mine('notifications', 'from_account_id')
    if (user) {
      // Push drops what it still holds of the user (docs/activities.md).
      await outbox.add(trx, { event: 'user.deleted', userId: user.id })
      await trx('users').where({ id: user.id }).delete()
    }
    await trx('accounts')
      .where({ id: accountId })
      .update({
        display_name: '',
        note: '',
        fields: JSON.stringify([]),
        avatar_file: null,
        header_file: null,
        locked: false,
        discoverable: false,
        indexable: false,
        followers_count: 0,
        following_count: 0,
        statuses_count: 0,
      })
  })
  d.logger.info({ accountId, username: account.username }, 'account deleted by its owner')
  return 'deleted'
}
