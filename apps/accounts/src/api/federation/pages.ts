import type { Request, Response } from 'express'
import { localDomainOf } from '../../config'
import type { AccountsContext } from '../../context'
import type { Urls } from '../../entities/account'
import type { AccountRow, MediaAttachmentRow, StatusRow } from '../../db/rows'
import { mediaUrl, missingAvatar, urlsOf } from '../../entities/account'
import { escapeHtml, fieldValueHtml, textToHtml } from '../../text/html'
import { attachmentsOf } from '../../entities/status'
import { statusHtml } from '../../text/status'
import { parseId } from '../../domain/records'
import { findLocalAccount } from '../../queries/accounts'
import { actorUri, profileUrl, statusUri, statusUrl } from '../../federation/uris'

/**
 * The small server-rendered pages behind the profile and status links every app shows (`/@alice`,
 * `/@alice/<id>`; docs/federation.md, "Pages"): OpenGraph tags for link previews, the public posts, and the
 * account's address to follow it from an app. ActivityPub clients asking the same URLs get JSON instead.
 */

const PAGE_SIZE = 20
/** Pages hold no script and load nothing but images: a strict policy costs nothing. */
const CSP =
  "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

interface PageParts {
  title: string
  og: Record<string, string>
  alternate?: string
  body: string
  lang?: string
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.45}
header{display:flex;gap:1rem;align-items:center}header img{width:72px;height:72px;border-radius:8px}
h1{font-size:1.3rem;margin:0}.acct{color:#666}.counts{color:#444;margin:.5rem 0}
article{border-top:1px solid #ddd;padding:.75rem 0}article time{color:#666;font-size:.85rem}
article img{max-width:100%;border-radius:6px}.follow{background:#f4f4f8;padding:.75rem;border-radius:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{font-weight:600}`

function page(res: Response, status: number, p: PageParts) {
  const meta = Object.entries(p.og)
    .map(([property, content]) => `<meta property="${property}" content="${escapeHtml(content)}">`)
    .join('\n')
  const alternate = p.alternate
    ? `<link rel="alternate" type="application/activity+json" href="${escapeHtml(p.alternate)}">\n`
    : ''
  res
    .status(status)
    .set('Content-Security-Policy', CSP)
    .set('Cache-Control', 'max-age=15, public')
    .set('Vary', 'Accept')
    .type('text/html; charset=utf-8')
    .send(
      `<!DOCTYPE html>\n<html lang="${p.lang ?? 'en'}">\n<head>\n<meta charset="utf-8">\n` +
        `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(p.title)}</title>\n` +
        `${alternate}${meta}\n<style>${STYLE}</style>\n</head>\n<body>\n${p.body}\n</body>\n</html>\n`,
    )
}

function notFoundPage(ctx: AccountsContext, res: Response) {
  page(res, 404, {
    title: `Not found - ${ctx.config.INSTANCE_TITLE}`,
    og: {},
    body: "<h1>The page you are looking for isn't here.</h1>",
  })
}

const avatarOf = (urls: Urls, a: AccountRow) =>
  a.avatar_file ? mediaUrl(urls, a.avatar_file) : missingAvatar(urls)
const nameOf = (a: AccountRow) => a.display_name || a.username
const plain = (text: string, max = 200) => {
  const t = text.replace(/\s+/g, ' ').trim()
  return [...t].length > max ? `${[...t].slice(0, max - 1).join('')}…` : t
}

function accountHeader(urls: Urls, a: AccountRow, handle: string) {
  return (
    `<header><img src="${escapeHtml(avatarOf(urls, a))}" alt="">` +
    `<div><h1>${escapeHtml(nameOf(a))}</h1><div class="acct">${escapeHtml(handle)}</div></div></header>`
  )
}

/** The follow box: the address an app (or another server's web interface) takes to find and follow the account. */
const followBox = (handle: string, actor: string) =>
  `<p class="follow">Follow <strong>${escapeHtml(handle)}</strong> from your app or any Mastodon-compatible ` +
  `server by searching for this address, or open <a href="${escapeHtml(actor)}" rel="alternate">the account's ` +
  `ActivityPub address</a> there.</p>`

/** Statuses of the page with their mentions and images, as the rows need them. */
async function renderPosts(
  ctx: AccountsContext,
  urls: Urls,
  author: AccountRow,
  rows: StatusRow[],
  linked: boolean,
) {
  const ids = rows.map((r) => r.id)
  const [mentioned, media] = await Promise.all([
    ctx
      .db('mentions')
      .join('accounts', 'accounts.id', 'mentions.account_id')
      .whereIn('mentions.status_id', ids)
      .select<(AccountRow & { status_id: string })[]>('accounts.*', 'mentions.status_id'),
    ctx.db('media_attachments').whereIn('status_id', ids).orderBy('id') as Promise<MediaAttachmentRow[]>,
  ])
  return rows
    .map((s) => {
      const mentions = new Map(
        mentioned.filter((m) => m.status_id === s.id).map((m) => [m.username.toLowerCase(), m as AccountRow]),
      )
      const content = statusHtml(s.text, mentions, urls)
      const images = attachmentsOf(s, media)
        .map(
          (m) =>
            `<a href="${escapeHtml(mediaUrl(urls, m.file))}"><img src="${escapeHtml(mediaUrl(urls, m.file))}" ` +
            `alt="${escapeHtml(m.description ?? '')}"></a>`,
        )
        .join('')
      const body = s.spoiler_text
        ? `<details><summary>${escapeHtml(s.spoiler_text)}</summary>${content}${images}</details>`
        : `${content}${images}`
      const when = new Date(s.created_at).toISOString()
      const time = `<time datetime="${when}">${when.slice(0, 16).replace('T', ' ')} UTC</time>`
      const stamp = linked
        ? `<a href="${escapeHtml(statusUrl(urls, author.username, s.id))}">${time}</a>`
        : time
      return `<article lang="${escapeHtml(s.language ?? 'en')}">${body}<div>${stamp}</div></article>`
    })
    .join('\n')
}

/** Public and unlisted posts show on pages (Mastodon's `permitted_for` a visitor), boosts and replies do not. */
const visibleOnPages = (ctx: AccountsContext, accountId: string) =>
  ctx
    .db('statuses')
    .where({ account_id: accountId })
    .whereIn('visibility', ['public', 'unlisted'])
    .whereNull('reblog_of_id')

/** GET /@:username as HTML: the profile page. */
export async function profilePage(ctx: AccountsContext, req: Request, res: Response) {
  const account = await findLocalAccount(ctx.db, String(req.params.username))
  if (!account) return notFoundPage(ctx, res)
  const urls = urlsOf(ctx.config)
  const handle = `@${account.username}@${localDomainOf(ctx.config)}`
  const title = `${nameOf(account)} (${handle})`
  const og = {
    'og:site_name': ctx.config.INSTANCE_TITLE,
    'og:type': 'profile',
    'og:title': title,
    'og:url': profileUrl(urls, account.username),
    'og:description': account.suspended_at ? '' : plain(account.note),
    'og:image': avatarOf(urls, account),
    'profile:username': handle.slice(1),
  }
  if (account.suspended_at)
    return page(res, 200, {
      title,
      og: { ...og, 'og:image': missingAvatar(urls) },
      body: `${accountHeader(urls, { ...account, avatar_file: null, display_name: '' }, handle)}<p>This account has been suspended.</p>`,
    })
  const rows: StatusRow[] = await visibleOnPages(ctx, account.id)
    .whereNull('in_reply_to_id')
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE)
  const fields = account.fields.length
    ? `<dl>${account.fields.map((f) => `<dt>${escapeHtml(f.name)}</dt><dd>${fieldValueHtml(f.value)}</dd>`).join('')}</dl>`
    : ''
  const counts =
    `<div class="counts">${account.statuses_count} posts · ${account.following_count} following · ` +
    `${account.followers_count} followers</div>`
  page(res, 200, {
    title,
    og,
    alternate: actorUri(urls, account.username),
    body:
      `${accountHeader(urls, account, handle)}${textToHtml(account.note)}${fields}${counts}` +
      `${followBox(handle, actorUri(urls, account.username))}\n<main>\n` +
      `${(await renderPosts(ctx, urls, account, rows, true)) || '<p>No posts yet.</p>'}\n</main>`,
  })
}

/** GET /@:username/:id as HTML: one public or unlisted post. */
export async function statusPage(ctx: AccountsContext, req: Request, res: Response) {
  const account = await findLocalAccount(ctx.db, String(req.params.username))
  const id = parseId(req.params.id)
  const status: StatusRow | undefined =
    account && id && !account.suspended_at
      ? await visibleOnPages(ctx, account.id).where({ id }).first()
      : undefined
  if (!account || !status) return notFoundPage(ctx, res)
  const urls = urlsOf(ctx.config)
  const handle = `@${account.username}@${localDomainOf(ctx.config)}`
  const title = `${nameOf(account)} (${handle})`
  const image = await ctx.db('media_attachments').where({ status_id: status.id }).orderBy('id').first('file')
  page(res, 200, {
    title,
    lang: status.language ?? 'en',
    og: {
      'og:site_name': ctx.config.INSTANCE_TITLE,
      'og:type': 'article',
      'og:title': title,
      'og:url': statusUrl(urls, account.username, status.id),
      'og:description': plain(status.spoiler_text || status.text),
      'og:image': image ? mediaUrl(urls, image.file) : avatarOf(urls, account),
      'article:published_time': new Date(status.created_at).toISOString(),
    },
    alternate: statusUri(urls, account.username, status.id),
    body:
      `<a href="${escapeHtml(profileUrl(urls, account.username))}">${accountHeader(urls, account, handle)}</a>\n` +
      `<main>\n${await renderPosts(ctx, urls, account, [status], false)}\n</main>\n` +
      followBox(handle, actorUri(urls, account.username)),
  })
}

/**
 * GET /users/:username and /users/:username/statuses/:id asked for HTML: redirected to the page (301, varying
 * on Accept), as Mastodon's routes do.
 */
export function redirectToPage(ctx: AccountsContext, req: Request, res: Response) {
  const urls = urlsOf(ctx.config)
  const username = encodeURIComponent(String(req.params.username))
  const target = req.params.id
    ? `${urls.base}/@${username}/${encodeURIComponent(String(req.params.id))}`
    : `${urls.base}/@${username}`
  res.set('Vary', 'Accept').redirect(301, target)
}
