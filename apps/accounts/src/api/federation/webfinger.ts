import type { Request, Response } from 'express'
import { readParams, webfingerParams } from '@roost/routes'
import { Malformed, NotFound } from '@roost/errors'
import { sendError } from '@roost/service'
import { localDomainOf } from '../../config'
import type { AccountsContext } from '../../context'
import type { AccountRow } from '../../db/rows'
import { mediaUrl, urlsOf } from '../../entities/account'
import type { Urls } from '../../entities/account'
import { findLocalAccount } from '../../queries/accounts'
import { actorUri, instanceActorUri, profileUrl } from '../../federation/uris'

const JRD = 'application/jrd+json; charset=utf-8'
/** Failed look-ups are cached three minutes, as Mastodon's. */
const SHORT_CACHE = { 'Cache-Control': 'max-age=180, public' }

/** What a WebFinger `resource` names on this server. */
export type WebfingerTarget =
  { kind: 'account'; username: string } | { kind: 'instance' } | { kind: 'elsewhere' }

/**
 * Reads a WebFinger resource as Mastodon's WebfingerResource does: `acct:user@domain` (the `acct:` optional),
 * a local actor or profile URL (`/users/alice`, `/@alice`) or the instance actor's URL. Another domain or path
 * names nothing here; anything else is malformed (undefined).
 */
export function parseResource(
  resource: string,
  localDomain: string,
  base: string,
): WebfingerTarget | undefined {
  if (/^https?:\/\//i.test(resource)) {
    let url: URL
    try {
      url = new URL(resource)
    } catch {
      return undefined
    }
    if (url.origin.toLowerCase() !== new URL(base).origin.toLowerCase()) return { kind: 'elsewhere' }
    if (url.pathname === '/actor') return { kind: 'instance' }
    const match = /^\/(?:users\/|@)([^/]+)\/?$/.exec(url.pathname)
    return match ? { kind: 'account', username: decodeURIComponent(match[1]!) } : { kind: 'elsewhere' }
  }
  const acct = resource.replace(/^acct:/i, '')
  const at = acct.lastIndexOf('@')
  if (at <= 0 || at === acct.length - 1) return undefined
  const username = acct.slice(0, at).replace(/^@/, '')
  const domain = acct.slice(at + 1).toLowerCase()
  if (domain !== localDomain) return { kind: 'elsewhere' }
  // The instance actor's name is the domain itself (Mastodon's convention: acct:example.com@example.com).
  if (username.toLowerCase() === localDomain) return { kind: 'instance' }
  return { kind: 'account', username }
}

const AVATAR_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
}

/** The JRD of a local account (Mastodon's WebfingerSerializer). */
export function accountJrd(account: AccountRow, localDomain: string, urls: Urls) {
  const { base } = urls
  const profile = profileUrl(urls, account.username)
  const self = actorUri(urls, account.username)
  const links: Record<string, string>[] = [
    { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: profile },
    { rel: 'self', type: 'application/activity+json', href: self },
    { rel: 'http://ostatus.org/schema/1.0/subscribe', template: `${base}/authorize_interaction?uri={uri}` },
  ]
  const avatarType = account.avatar_file ? AVATAR_TYPES[account.avatar_file.split('.').pop()!] : undefined
  if (account.avatar_file && avatarType && !account.suspended_at)
    links.push({
      rel: 'http://webfinger.net/rel/avatar',
      type: avatarType,
      href: mediaUrl(urls, account.avatar_file),
    })
  return { subject: `acct:${account.username}@${localDomain}`, aliases: [profile, self], links }
}

/**
 * GET /.well-known/webfinger?resource= (RFC 7033; docs/federation.md, "Discovery"). As Mastodon: a missing or
 * malformed resource is a 400, an account that is not ours or does not exist a 404, both cached three minutes
 * (with Roost's `{"error"}` body where Mastodon sends none); a found one is cached three days.
 */
export async function webfinger(ctx: AccountsContext, req: Request, res: Response) {
  const fail = (status: 400 | 404) =>
    sendError(res, status === 400 ? new Malformed('Bad Request') : new NotFound(), undefined, SHORT_CACHE)
  if (!ctx.config.FEDERATION) return fail(404)
  const { resource } = readParams(req, webfingerParams)
  if (typeof resource !== 'string' || !resource.trim()) return fail(400)
  const localDomain = localDomainOf(ctx.config)
  const urls = urlsOf(ctx.config)
  const { base } = urls
  const target = parseResource(resource.trim(), localDomain, base)
  if (!target) return fail(400)
  let body
  if (target.kind === 'instance') {
    const actor = instanceActorUri(urls)
    body = {
      subject: `acct:${localDomain}@${localDomain}`,
      aliases: [actor],
      links: [
        {
          rel: 'http://webfinger.net/rel/profile-page',
          type: 'text/html',
          href: `${base}/about/more?instance_actor=true`,
        },
        { rel: 'self', type: 'application/activity+json', href: actor },
      ],
    }
  } else {
    const account = target.kind === 'account' ? await findLocalAccount(ctx.db, target.username) : undefined
    if (!account) return fail(404)
    body = accountJrd(account, localDomain, urls)
  }
  res.set('Cache-Control', 'max-age=259200, public').type(JRD).send(JSON.stringify(body))
}
