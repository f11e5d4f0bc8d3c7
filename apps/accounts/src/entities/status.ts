import type { Knex } from '@roost/db'
import { activeFilters, matchFilters } from '../queries/filters'
import { accountsById } from '../queries/accounts'
import { bigintArray } from '../queries/sql'
import type { Urls } from './account'
import type { AccountRow, MediaAttachmentRow, StatusRow } from '../db/rows'
import { renderAccount } from './account'
import { renderCustomEmoji } from './custom_emoji'
import { emojisOfMany } from '../queries/custom_emojis'
import { renderMediaAttachment } from './media_attachment'
import { renderFilterResult } from './filter'
import { pollsOf } from './poll'
import { statusHtml } from '../text/status'
import { quoteApproval, quoteViews } from './quote'
import type { QuoteView } from './quote'
import { followsBothWays, quotePermissionFrom } from '../queries/quotes'

/**
 * A status's current attachments: those an edit kept, in the author's order (an edit leaves removed ones attached
 * for the history), or every attached one in id order.
 */
export function attachmentsOf(status: StatusRow, media: MediaAttachmentRow[]): MediaAttachmentRow[] {
  const attached = media.filter((m) => m.status_id === status.id)
  if (!status.ordered_media_attachment_ids) return attached
  return status.ordered_media_attachment_ids.flatMap((id) => attached.find((m) => m.id === id) ?? [])
}

/** A status's counters and what the viewer has done with it, as `renderStatuses` shows them. */
interface StatusFacts {
  replies: number
  reblogs: number
  favourites: number
  favourited: boolean
  reblogged: boolean
  pinned: boolean
  bookmarked: boolean
  /** The viewer muted the status's conversation. */
  muted: boolean
  /** The mentioned accounts' ids. */
  mentioned: string[]
  /** Its hashtags' names, in order. */
  tags: string[]
}

const NO_FACTS: StatusFacts = {
  replies: 0,
  reblogs: 0,
  favourites: 0,
  favourited: false,
  reblogged: false,
  pinned: false,
  bookmarked: false,
  muted: false,
  mentioned: [],
  tags: [],
}

/**
 * The counters of `ids`, what `viewerId` has done with each, and their mentions and hashtags, in one statement:
 * each is an index lookup per status, where they were ten statements a page (docs/performance.md, "Queries"). The
 * counters are kept as replies, boosts and favourites come and go (`status_stats`, docs/performance.md, "Counters").
 */
async function statusFacts(db: Knex, ids: string[], viewerId?: string): Promise<Map<string, StatusFacts>> {
  type Row = Record<keyof StatusFacts, string | boolean | string[]> & { id: string }
  const { rows } = await db.raw<{ rows: Row[] }>(
    `SELECT s.id::text AS id,
            coalesce(c.replies_count, 0) AS replies,
            coalesce(c.reblogs_count, 0) AS reblogs,
            coalesce(c.favourites_count, 0) AS favourites,
            EXISTS (SELECT 1 FROM favourites f WHERE f.status_id = s.id AND f.account_id = :viewer) AS favourited,
            EXISTS (SELECT 1 FROM statuses b WHERE b.reblog_of_id = s.id AND b.account_id = :viewer) AS reblogged,
            EXISTS (SELECT 1 FROM status_pins p WHERE p.status_id = s.id AND p.account_id = :viewer) AS pinned,
            EXISTS (SELECT 1 FROM bookmarks k WHERE k.status_id = s.id AND k.account_id = :viewer) AS bookmarked,
            EXISTS (SELECT 1 FROM statuses t JOIN conversation_mutes m ON m.conversation_id = t.conversation_id
                     WHERE t.id = s.id AND m.account_id = :viewer) AS muted,
            ARRAY(SELECT account_id::text FROM mentions WHERE status_id = s.id ORDER BY account_id) AS mentioned,
            ARRAY(SELECT tags.name FROM status_tags JOIN tags ON tags.id = status_tags.tag_id
                   WHERE status_tags.status_id = s.id ORDER BY tags.name) AS tags
       FROM unnest(:ids::bigint[]) AS s(id) LEFT JOIN status_stats c ON c.status_id = s.id`,
    { ids: bigintArray(ids), viewer: viewerId ?? null },
  )
  return new Map(
    rows.map((r) => [
      r.id,
      {
        replies: Number(r.replies),
        reblogs: Number(r.reblogs),
        favourites: Number(r.favourites),
        favourited: r.favourited === true,
        reblogged: r.reblogged === true,
        pinned: r.pinned === true,
        bookmarked: r.bookmarked === true,
        muted: r.muted === true,
        mentioned: r.mentioned as string[],
        tags: r.tags as string[],
      },
    ]),
  )
}

/**
 * What the request that created a status knows of it already (`createStatus`): nothing else can point at it yet,
 * so its counters are 0 and the viewer (its author) has not favourited, boosted, pinned or bookmarked it. Given
 * to `renderStatuses`, it saves the queries that would read those facts back (docs/performance.md, "Write path").
 */
export interface NewStatusFacts {
  author: AccountRow
  media: MediaAttachmentRow[]
  mentioned: AccountRow[]
  /** Normalised names. */
  tags: string[]
  application: { id: string; name: string; website: string | null } | null
  hasPoll: boolean
  /** A reply joins its parent's conversation, which the author may have muted. */
  isReply: boolean
  /** Only a status that quotes a post has a quote to read. */
  hasQuote: boolean
}

/**
 * Mastodon's Status entity for a batch of rows, as `viewerId` sees them (favourited, reblogged, pinned).
 * Reblogs embed the original status. `withText` adds the source text (the DELETE answer, for redrafting).
 * `created`: the one row is a status the viewer has just created, with what the request knows of it.
 */
export async function renderStatuses(
  db: Knex,
  urls: Urls,
  rows: StatusRow[],
  viewerId?: string,
  withText = false,
  created?: NewStatusFacts,
  /** Quoted posts inside a quote: their own quote is a ShallowQuote. */
  shallow = false,
): Promise<Record<string, unknown>[]> {
  const fresh = created && rows.length === 1 && !rows[0]!.reblog_of_id ? created : undefined
  const originalIds = rows.map((r) => r.reblog_of_id).filter((id): id is string => !!id)
  const originals: StatusRow[] = originalIds.length ? await db('statuses').whereIn('id', originalIds) : []
  const all = [...rows, ...originals]
  const ids = all.map((s) => s.id)
  const noPolls: Awaited<ReturnType<typeof pollsOf>> = new Map()
  const accounts = fresh
    ? new Map<string, AccountRow>([fresh.author, ...fresh.mentioned].map((a) => [a.id, a]))
    : undefined
  const authors =
    accounts ??
    (await accountsById(
      db,
      all.map((s) => s.account_id),
    ))
  const domains = new Map(all.map((s) => [s.id, authors.get(s.account_id)?.domain ?? null]))
  const [media, facts, polls, filters, quotes, rels] = await Promise.all([
    fresh
      ? fresh.media
      : (db('media_attachments').whereIn('status_id', ids).orderBy('id') as Promise<MediaAttachmentRow[]>),
    // A status just made has no replies, boosts or favourites, its author has not acted on it yet, and its
    // mentions and tags are known; only a reply joins a conversation its author may have muted.
    fresh && !fresh.isReply ? new Map<string, StatusFacts>() : statusFacts(db, ids, viewerId),
    fresh && !fresh.hasPoll ? noPolls : pollsOf(db, ids, viewerId, urls, domains),
    viewerId ? activeFilters(db, viewerId) : [],
    // Quotes (docs/statuses.md, "Quotes"): the viewer's state of each, and who may quote what. A status just
    // made has a quote only if it quotes, and its author may always quote it (`quotePermissionFrom`).
    fresh && !fresh.hasQuote ? new Map<string, QuoteView>() : quoteViews(db, ids, viewerId),
    fresh
      ? { following: new Set<string>(), followed: new Set<string>() }
      : followsBothWays(
          db,
          viewerId,
          all.map((s) => s.account_id),
        ),
  ])
  // Mastodon 4.5's `quotes_count`: the accepted quotes of each (none yet of a status just made).
  const quoteCounts = new Map<string, number>(
    fresh
      ? []
      : (
          await db('quotes')
            .whereIn('quoted_status_id', ids)
            .where({ state: 'accepted' })
            .groupBy('quoted_status_id')
            .select('quoted_status_id', db.raw('count(*)::int AS n'))
        ).map((r: { quoted_status_id: string; n: number }) => [r.quoted_status_id, r.n]),
  )
  const quotedIds = [
    ...new Set([...quotes.values()].flatMap((q) => (q.quoted_status_id ? [q.quoted_status_id] : []))),
  ]
  // The quoted posts, rendered shallow (their own quote as a ShallowQuote), as Mastodon's ShallowStatusSerializer.
  const quotedRows: StatusRow[] = quotedIds.length ? await db('statuses').whereIn('id', quotedIds) : []
  const quotedEntities = new Map(
    quotedRows.length
      ? (await renderStatuses(db, urls, quotedRows, viewerId, false, undefined, true)).map((e) => [
          e.id as string,
          e,
        ])
      : [],
  )
  const factsOf = (id: string) => facts.get(id) ?? NO_FACTS
  const mentionedIds = (id: string) => (fresh ? fresh.mentioned.map((a) => a.id) : factsOf(id).mentioned)
  const tagsOf = (id: string) => (fresh ? [...fresh.tags].sort() : factsOf(id).tags)
  // Mastodon shows the posting app only to the status's author.
  const appIds = [
    ...new Set(all.flatMap((s) => (s.account_id === viewerId && s.application_id ? [s.application_id] : []))),
  ]
  const applications = new Map<string, { name: string; website: string | null }>(
    fresh
      ? fresh.application
        ? [[fresh.application.id, { name: fresh.application.name, website: fresh.application.website }]]
        : []
      : appIds.length
        ? (await db('oauth_applications').whereIn('id', appIds).select('id', 'name', 'website')).map(
            (app: { id: string; name: string; website: string | null }) => [
              app.id,
              { name: app.name, website: app.website },
            ],
          )
        : [],
  )
  const mentionedAccounts = accounts
    ? accounts
    : new Map([
        ...authors,
        ...(await accountsById(
          db,
          all.flatMap((s) => mentionedIds(s.id)),
        )),
      ])
  // Custom emojis of its text, warning and poll options, from its author's server (Mastodon's Status#emojis).
  const emojis = await emojisOfMany(
    db,
    all.map((s) => {
      const poll = polls.get(s.id) as { options?: { title: string }[] } | undefined
      return {
        key: s.id,
        domain: domains.get(s.id),
        texts: [s.spoiler_text, s.text, ...(poll?.options ?? []).map((o) => o.title)],
      }
    }),
  )

  /** The text filters match (Mastodon's searchable text): spoiler, text, poll options, media descriptions. */
  const filterText = (s: StatusRow) => {
    const poll = polls.get(s.id) as { options?: { title: string }[] } | undefined
    return [
      s.spoiler_text,
      s.text,
      ...(poll?.options ?? []).map((o) => o.title),
      ...attachmentsOf(s, media).map((m) => m.description ?? ''),
    ].join('\n\n')
  }
  const filteredOf = (s: StatusRow, original: StatusRow | undefined) =>
    filters.length
      ? matchFilters(filters, filterText(original ?? s), [
          s.id,
          ...(s.reblog_of_id ? [s.reblog_of_id] : []),
        ]).map(renderFilterResult)
      : []

  const render = (s: StatusRow): Record<string, unknown> => {
    const account = mentionedAccounts.get(s.account_id)!
    const mentioned = mentionedIds(s.id).map((id) => mentionedAccounts.get(id)!)
    const original = s.reblog_of_id ? originals.find((o) => o.id === s.reblog_of_id) : undefined
    const url = `${urls.base}/@${account.username}/${s.id}`
    return {
      id: s.id,
      created_at: new Date(s.created_at).toISOString(),
      in_reply_to_id: s.in_reply_to_id,
      in_reply_to_account_id: s.in_reply_to_account_id,
      // A sensitized author's media always read as sensitive (docs/moderation.md, "Account actions").
      sensitive: s.sensitive || (!!account.sensitized_at && attachmentsOf(s, media).length > 0),
      spoiler_text: s.spoiler_text,
      visibility: s.visibility,
      language: s.language,
      // A remote status keeps its own id and page (docs/federation.md, "Incoming statuses").
      uri: s.uri ?? `${urls.base}/users/${account.username}/statuses/${s.id}`,
      url: original ? null : s.uri ? (s.url ?? s.uri) : url,
      replies_count: factsOf(s.id).replies,
      reblogs_count: factsOf(s.id).reblogs,
      favourites_count: factsOf(s.id).favourites,
      edited_at: s.edited_at ? new Date(s.edited_at).toISOString() : null,
      favourited: factsOf(s.id).favourited,
      reblogged: factsOf(s.id).reblogged,
      muted: factsOf(s.id).muted,
      bookmarked: factsOf(s.id).bookmarked,
      ...(viewerId === s.account_id ? { pinned: factsOf(s.id).pinned } : {}),
      // A remote status's text is its HTML, sanitised when it arrived (federation/inbox/sanitize.ts).
      content: s.uri
        ? s.text
        : statusHtml(s.text, new Map(mentioned.map((a) => [a.username.toLowerCase(), a])), urls),
      ...(withText ? { text: s.text } : {}),
      filtered: filteredOf(s, original),
      reblog: original ? render(original) : null,
      application:
        (s.account_id === viewerId && s.application_id && applications.get(s.application_id)) || null,
      account: renderAccount(account, urls),
      media_attachments: attachmentsOf(s, media).map((m) => renderMediaAttachment(m, urls)),
      mentions: mentioned.map((a) => ({
        id: a.id,
        username: a.username,
        url: a.domain ? (a.url ?? a.uri ?? '') : `${urls.base}/@${a.username}`,
        acct: a.domain ? `${a.username}@${a.domain}` : a.username,
      })),
      tags: tagsOf(s.id).map((name) => ({ name, url: `${urls.base}/tags/${encodeURIComponent(name)}` })),
      emojis: (emojis.get(s.id) ?? []).map((e) => renderCustomEmoji(e, urls)),
      card: null,
      poll: polls.get(s.id) ?? null,
      quote: quoteOf(s.id),
      quotes_count: quoteCounts.get(s.id) ?? 0,
      quote_approval: quoteApproval(
        s,
        quotePermissionFrom(s, viewerId, {
          following: rels.following.has(s.account_id),
          followed: rels.followed.has(s.account_id),
        }),
      ),
    }
  }
  /** Mastodon's Quote (the quoted post rendered), or ShallowQuote inside a quoted post; null without a quote. */
  const quoteOf = (id: string) => {
    const q = quotes.get(id)
    if (!q) return null
    if (shallow) return { state: q.state, quoted_status_id: q.quoted_status_id }
    return {
      state: q.state,
      quoted_status: (q.quoted_status_id && quotedEntities.get(q.quoted_status_id)) || null,
    }
  }
  return rows.map(render)
}

export async function renderStatus(
  db: Knex,
  urls: Urls,
  row: StatusRow,
  viewerId?: string,
  withText = false,
  created?: NewStatusFacts,
) {
  const [status] = await renderStatuses(db, urls, [row], viewerId, withText, created)
  return status!
}
