import type { AccountRow } from '../db/rows'
import type { Federation } from './transport/client'
import { attributesOf, decodeEntities } from './inbox/sanitize'

/**
 * Verified profile links (docs/federation.md, "Profile fields"), as Mastodon's VerifyLinkService: a field whose
 * value is a link is verified when the page it links to links back to the profile with `rel="me"`. Run by the
 * accounts worker (`account.links_changed`) through the SSRF-guarded client, for local fields when they are saved
 * and for remote ones when their actor is stored.
 */

type Field = AccountRow['fields'][number]

/** The profile page a verified link must point back to (Mastodon's `url_for(account)`). */
export const profileUrlOf = (account: AccountRow, base: string) =>
  account.domain ? (account.url ?? account.uri ?? '') : `${base}/@${account.username}`

/**
 * The URL a field's value offers for verification (Mastodon's Account::Field#value_for_verification): a local value
 * is the URL itself; a remote value (sanitised HTML) must be one link whose text is its address. Only https (and
 * http where FEDERATION_ALLOW_HTTP allows it), no user or password, a lower-case host.
 */
export function verifiableUrl(value: string, local: boolean, allowHttp: boolean): string | undefined {
  let candidate: string | undefined = value.trim()
  if (!local) {
    const m = /^<a\b([^>]*)>([\s\S]*?)<\/a>$/i.exec(candidate)
    if (!m) return undefined
    const href = attributesOf(m[1]!).get('href')
    const text = decodeEntities(m[2]!.replace(/<[^>]*>/g, ''))
    candidate = href && href === text ? href : undefined
  }
  if (!candidate || /\s/.test(candidate)) return undefined
  try {
    const url = new URL(candidate)
    const schemeOk = url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')
    if (!schemeOk || url.username || url.password || !url.hostname) return undefined
    // Mastodon refuses a host not already in its normal form (an IDN, upper case): the URL parser would change it.
    return candidate.startsWith(`${url.protocol}//${url.host}`) ? candidate : undefined
  } catch {
    return undefined
  }
}

/** Fields not verified yet that could be (Mastodon's `requires_verification?`). */
export const fieldsToVerify = (fields: Field[], local: boolean, allowHttp: boolean) =>
  fields.filter((f) => !f.verified_at && verifiableUrl(f.value, local, allowHttp))

const REL_ME = /<(a|link)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi

/** The `href`s of a page's `<a>` and `<link>` elements whose `rel` has `me`, in order. */
export function relMeLinks(html: string): string[] {
  const links: string[] = []
  for (const m of html.matchAll(REL_ME)) {
    const attrs = attributesOf(m[2] ?? '')
    if ((attrs.get('rel') ?? '').split(/\s+/).includes('me')) links.push(attrs.get('href') ?? '')
  }
  return links
}

/**
 * Whether the page at `url` links back to `profileUrl` (Mastodon's `link_back_present?`): one of its rel=me links
 * is the profile's URL (case aside), or else its first rel=me link redirects there. A page that cannot be read
 * (refused address, not 200, over 1 MB, too slow) verifies nothing.
 */
export async function linksBack(fed: Federation, url: string, profileUrl: string): Promise<boolean> {
  try {
    const res = await fed.fetchPage(url)
    if (res.status !== 200) return false
    const links = relMeLinks(res.body.toString('utf8'))
    if (links.some((l) => l.toLowerCase() === profileUrl.toLowerCase())) return true
    if (!links[0]) return false
    const head = await fed.fetchPage(new URL(links[0], url).href, 'HEAD')
    return head.status >= 300 && head.status < 400 && head.headers.location === profileUrl
  } catch (err) {
    fed.logger.debug({ err, url }, 'a profile link could not be verified')
    return false
  }
}

/**
 * Verifies the fields of an account that need it, and stores `verified_at` on those whose page links back; a field
 * changed meanwhile is left as it now is. The number verified.
 */
export async function verifyAccountLinks(fed: Federation, account: AccountRow): Promise<number> {
  const local = !account.domain
  const profileUrl = profileUrlOf(account, fed.urls.base)
  const verified = new Set<string>()
  for (const field of fieldsToVerify(account.fields, local, fed.allowHttp)) {
    if (await linksBack(fed, verifiableUrl(field.value, local, fed.allowHttp)!, profileUrl))
      verified.add(field.value)
  }
  if (!verified.size) return 0
  const now = new Date().toISOString()
  await fed.db.transaction(async (trx) => {
    const row: AccountRow | undefined = await trx('accounts').where({ id: account.id }).forUpdate().first()
    if (!row) return
    const fields = row.fields.map((f) =>
      !f.verified_at && verified.has(f.value) ? { ...f, verified_at: now } : f,
    )
    await trx('accounts')
      .where({ id: account.id })
      .update({ fields: JSON.stringify(fields) })
  })
  return verified.size
}
