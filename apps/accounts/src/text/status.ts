import type { AccountRow } from '../db/rows'
import { HASHTAG, normalizeTag } from './hashtags'
import { escapeHtml } from './html'

/**
 * A status's text as Mastodon reads and shows it: the mentions it holds, and its HTML with links for the mentioned
 * accounts and the hashtags. The client API's Status entity, the ActivityPub Note (federation/render/note.ts), the
 * pages, edits and announcements all write it with these, so that they show the same HTML.
 */

/** `@username` (local) as Mastodon writes it; a preceding word character or '/' means no match. */
export const MENTION = /(?<![\w@/])@([a-z0-9_]{1,30})(?![\w@])/gi

/**
 * `@username` or `@username@host` (a remote account; the host may carry a port), as Mastodon's Account::MENTION_RE
 * finds them (docs/federation.md, "Mentions of remote accounts").
 */
export const ANY_MENTION =
  /(?<![\w@/])@([a-z0-9_]{1,30})(?:@([a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?))?(?![\w@])/gi

/** A mentioned account's key in `statusHtml`: `username` (local) or `username@domain`, lower case. */
const mentionKey = (a: Pick<AccountRow, 'username' | 'domain'>) =>
  (a.domain ? `${a.username}@${a.domain}` : a.username).toLowerCase()

/**
 * The status text as Mastodon's HTML: paragraphs, line breaks, links for the mentioned accounts (`mentioned`'s
 * values; remote ones link to their profile on their server) and hashtags. `urls.base` is the public base URL (the
 * entities' `Urls`, which text, below them, names only by its shape).
 */
export function statusHtml(text: string, mentioned: Map<string, AccountRow>, urls: { base: string }): string {
  if (!text) return ''
  const byKey = new Map([...mentioned.values()].map((a) => [mentionKey(a), a]))
  const linkify = (line: string) =>
    escapeHtml(line)
      .replace(ANY_MENTION, (whole, name: string, domain: string | undefined) => {
        const account = byKey.get((domain ? `${name}@${domain}` : name).toLowerCase())
        if (!account) return whole
        const href = account.domain
          ? escapeHtml(account.url && /^https?:\/\//.test(account.url) ? account.url : (account.uri ?? ''))
          : `${urls.base}/@${account.username}`
        return `<span class="h-card" translate="no"><a href="${href}" class="u-url mention">@<span>${account.username}</span></a></span>`
      })
      .replace(
        HASHTAG,
        (_whole, tag: string) =>
          `<a href="${urls.base}/tags/${encodeURIComponent(normalizeTag(tag))}" class="mention hashtag" rel="tag">#<span>${tag}</span></a>`,
      )
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${p.split('\n').map(linkify).join('<br />')}</p>`)
    .join('')
}
