import type { Request, Response } from 'express'
import { Invalid } from '@roost/errors'
import { createImportParams, readParams, settingsFormParams } from '@roost/routes'
import { uploadedFile } from '@roost/service'
import type { Knex } from '@roost/db'
import type { AccountsContext } from '../context'
import type { AccountRow, StatusRow } from '../db/rows'
import { localDomainOf } from '../config'
import { ARCHIVE_TTL_MS, recentArchives, requestArchive } from '../domain/archives'
import { createImport, parseImport, readImportMode, readImportType } from '../domain/imports'
import { urlsOf } from '../entities/account'
import { objectUriOf } from '../federation/uris'
import { toCsv } from '../text/csv'
import { problemPage } from '../auth/pages'
import { formCsrf, settingsAccount, settingsCsrf } from './common'
import type { SettingsAccount } from './common'
import { exportPage, importsPage } from './data-pages'

/**
 * One's data (docs/security.md, "Your data"): the CSV exports, written on request as Mastodon's
 * Settings::ExportsController does (columns of app/models/export.rb), the archive asked for here and built by the
 * worker, and the CSV imports, checked here and applied by the worker.
 */

/** Mastodon's `acct` of the export: `user@domain`, local accounts with the local domain (Export#acct). */
const exportAcct = (ctx: AccountsContext, a: Pick<AccountRow, 'username' | 'domain'>) =>
  `${a.username}@${a.domain ?? localDomainOf(ctx.config)}`

type Csv = { name: string; build: (ctx: AccountsContext, accountId: string) => Promise<string> }

/** Export#to_following_accounts_csv: the follows, newest first, with their options. */
async function followingCsv(ctx: AccountsContext, accountId: string) {
  const rows: (Pick<AccountRow, 'username' | 'domain'> & {
    show_reblogs: boolean
    notify: boolean
    languages: string[] | null
  })[] = await ctx
    .db('follows')
    .join('accounts', 'accounts.id', 'follows.target_account_id')
    .where('follows.account_id', accountId)
    .orderBy('follows.id', 'desc')
    .select(
      'accounts.username',
      'accounts.domain',
      'follows.show_reblogs',
      'follows.notify',
      'follows.languages',
    )
  return toCsv([
    ['Account address', 'Show boosts', 'Notify on new posts', 'Languages'],
    ...rows.map((r) => [
      exportAcct(ctx, r),
      String(r.show_reblogs),
      String(r.notify),
      (r.languages ?? []).join(', '),
    ]),
  ])
}

/** Export#to_lists_csv: one row per list and member, no header. */
async function listsCsv(ctx: AccountsContext, accountId: string) {
  const rows: (Pick<AccountRow, 'username' | 'domain'> & { title: string })[] = await ctx
    .db('lists')
    .join('list_accounts', 'list_accounts.list_id', 'lists.id')
    .join('accounts', 'accounts.id', 'list_accounts.account_id')
    .where('lists.account_id', accountId)
    .orderBy([{ column: 'lists.id' }, { column: 'list_accounts.id' }])
    .select('lists.title', 'accounts.username', 'accounts.domain')
  return toCsv(rows.map((r) => [r.title, exportAcct(ctx, r)]))
}

/** Export#to_blocked_accounts_csv: one address per row, no header. */
async function blocksCsv(ctx: AccountsContext, accountId: string) {
  const rows: Pick<AccountRow, 'username' | 'domain'>[] = await ctx
    .db('blocks')
    .join('accounts', 'accounts.id', 'blocks.target_account_id')
    .where('blocks.account_id', accountId)
    .orderBy('blocks.id', 'desc')
    .select('accounts.username', 'accounts.domain')
  return toCsv(rows.map((r) => [exportAcct(ctx, r)]))
}

/** Export#to_muted_accounts_csv: with the `Hide notifications` column and its header. */
async function mutesCsv(ctx: AccountsContext, accountId: string) {
  const rows: (Pick<AccountRow, 'username' | 'domain'> & { hide_notifications: boolean })[] = await ctx
    .db('mutes')
    .join('accounts', 'accounts.id', 'mutes.target_account_id')
    .where('mutes.account_id', accountId)
    .orderBy('mutes.id', 'desc')
    .select('accounts.username', 'accounts.domain', 'mutes.hide_notifications')
  return toCsv([
    ['Account address', 'Hide notifications'],
    ...rows.map((r) => [exportAcct(ctx, r), String(r.hide_notifications)]),
  ])
}

/** Export#to_blocked_domains_csv: one domain per row, no header. */
async function domainBlocksCsv(ctx: AccountsContext, accountId: string) {
  const domains: string[] = await ctx
    .db('account_domain_blocks')
    .where({ account_id: accountId })
    .orderBy('id')
    .pluck('domain')
  return toCsv(domains.map((d) => [d]))
}

/** Export#to_bookmarks_csv: the bookmarked statuses' ActivityPub ids, newest first, no header. */
async function bookmarksCsv(ctx: AccountsContext, accountId: string) {
  const urls = urlsOf(ctx.config)
  const rows = await bookmarkedStatuses(ctx.db, accountId)
  return toCsv(rows.map(({ status, author }) => [objectUriOf(urls, status, author)]))
}

/** The statuses the account bookmarked, with their authors, newest bookmark first. */
export async function bookmarkedStatuses(db: Knex, accountId: string) {
  const rows: (StatusRow & {
    author_username: string
    author_domain: string | null
    author_uri: string | null
  })[] = await db('bookmarks')
    .join('statuses', 'statuses.id', 'bookmarks.status_id')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('bookmarks.account_id', accountId)
    .orderBy('bookmarks.id', 'desc')
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

/** The paths of Mastodon's Settings::ExportsController, and the names Mastodon gives the files. */
const CSV_EXPORTS: Record<string, Csv> = {
  'follows.csv': { name: 'following_accounts.csv', build: followingCsv },
  'lists.csv': { name: 'lists.csv', build: listsCsv },
  'blocks.csv': { name: 'blocked_accounts.csv', build: blocksCsv },
  'mutes.csv': { name: 'muted_accounts.csv', build: mutesCsv },
  'domain_blocks.csv': { name: 'blocked_domains.csv', build: domainBlocksCsv },
  'bookmarks.csv': { name: 'bookmarks.csv', build: bookmarksCsv },
}

/** GET /settings/exports/:file — one CSV, written now. */
export async function downloadCsv(ctx: AccountsContext, req: Request, res: Response) {
  const csv = CSV_EXPORTS[String(req.params.file)]
  if (!csv) return res.status(404).json({ error: 'Record not found' })
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  res
    .type('text/csv; charset=utf-8')
    .set('Content-Disposition', `attachment; filename="${csv.name}"`)
    .send(await csv.build(ctx, me.account.id))
}

async function renderExport(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  me: SettingsAccount,
  status: number,
  message: { error?: string; notice?: string } = {},
) {
  const archives = await recentArchives(ctx.db, me.user.id)
  res
    .status(status)
    .type('html')
    .send(
      exportPage({
        csrf: settingsCsrf(ctx, req, res),
        archives,
        canRequest: !archives.some((a) => a.state !== 'failed'),
        ...message,
      }),
    )
}

/** GET /settings/export */
export async function showExport(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (me) await renderExport(ctx, req, res, me, 200)
}

/** POST /settings/export — asks for an archive; one a week. */
export async function postArchiveRequest(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const p = readParams(req, settingsFormParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/export')) return
  try {
    await ctx.db.transaction((trx) => requestArchive(trx, me.user.id))
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    return renderExport(ctx, req, res, me, 422, { error: err.message })
  }
  await renderExport(ctx, req, res, me, 200, {
    notice: 'Your archive is being prepared: reload this page in a while.',
  })
}

/** GET /settings/exports/archives/:id — the zip, to its owner only, within its week. */
export async function downloadArchive(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const id = String(req.params.id)
  const archive = /^\d{1,19}$/.test(id)
    ? await ctx.db('archives').where({ id, user_id: me.user.id, state: 'done' }).first()
    : undefined
  const data =
    archive?.file && Date.now() - new Date(archive.created_at).getTime() < ARCHIVE_TTL_MS
      ? await ctx.media.read(archive.file)
      : undefined
  if (!data)
    return res
      .status(404)
      .type('html')
      .send(problemPage('No such archive', 'This archive does not exist or has expired.'))
  const day = new Date(archive.created_at).toISOString().slice(0, 10)
  res
    .type('application/zip')
    .set('Content-Disposition', `attachment; filename="archive-${day}-${me.account.username}.zip"`)
    .send(data)
}

async function renderImports(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  me: SettingsAccount,
  status: number,
  message: { error?: string; notice?: string } = {},
) {
  const imports = await ctx.db('imports').where({ account_id: me.account.id }).orderBy('id', 'desc').limit(20)
  res
    .status(status)
    .type('html')
    .send(importsPage({ csrf: settingsCsrf(ctx, req, res), imports, ...message }))
}

/** GET /settings/imports — the form, and recent imports with their progress and failed rows. */
export async function showImports(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (me) await renderImports(ctx, req, res, me, 200)
}

/**
 * POST /settings/imports — a CSV upload (`data`), checked as Mastodon's Form::Import (size, rows, columns) before
 * anything is stored; a refused file changes nothing, an accepted one leads back to the page of imports, where its
 * progress shows.
 */
export async function postImport(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const p = readParams(req, createImportParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/imports')) return
  try {
    const type = readImportType(p.type)
    const overwrite = readImportMode(p.mode)
    const file = uploadedFile(req, 'data')
    if (!file) throw new Invalid("Validation failed: Data can't be blank")
    const parsed = parseImport(type, file.buffer)
    await ctx.db.transaction((trx) =>
      createImport(trx, me.account.id, type, overwrite, file.originalname || null, parsed),
    )
    // Post/Redirect/Get: reloading the page that shows the progress must not send the file again.
    res.redirect(303, '/settings/imports')
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    await renderImports(ctx, req, res, me, 422, { error: err.message })
  }
}
