import type { Knex } from '@roost/db'
import { ANY_MENTION } from '../text/status'
import type { Federation } from './transport/client'
import { resolveAcct } from './remote-accounts'

/** How long a status's post waits for its remote mentions to resolve, in all (Mastodon's resolve has a timeout). */
export const MENTION_RESOLVE_MS = 10_000
/** At most this many distinct remote addresses are resolved for one status. */
const MAX_RESOLVED = 20

/**
 * `@user@<our domain>` as Mastodon's ProcessMentionsService writes it: `@user`, a mention of the local account,
 * when that account exists (else the text stays as typed). The status then mentions, notifies and links it as any
 * `@user` (docs/federation.md, "Mentions of remote accounts").
 */
export async function withLocalMentions(db: Knex, text: string, localDomain: string): Promise<string> {
  const local = localDomain.toLowerCase()
  const names = [
    ...new Set(
      [...text.matchAll(ANY_MENTION)]
        .filter((m) => m[2]?.toLowerCase() === local)
        .map((m) => m[1]!.toLowerCase()),
    ),
  ]
  if (!names.length) return text
  const existing: { username: string }[] = await db('accounts')
    .whereNull('domain')
    .whereNull('suspended_at')
    .whereRaw('lower(username) = any(?)', [names])
    .select('username')
  const byName = new Map(existing.map((a) => [a.username.toLowerCase(), a.username]))
  return text.replace(ANY_MENTION, (whole, name: string, domain: string | undefined) => {
    const username = domain?.toLowerCase() === local ? byName.get(name.toLowerCase()) : undefined
    return username ? `@${username}` : whole
  })
}

/**
 * Mastodon's ProcessMentionsService resolves `@user@host` at post time: each remote address of `text` not yet
 * known (or known for more than a day) is looked up by WebFinger and its actor stored (remote-accounts.ts), so
 * that the status's transaction finds it (`mentionedAccounts`). Runs before that transaction, in the request,
 * together and within MENTION_RESOLVE_MS; an address that cannot be resolved in time stays text
 * (docs/federation.md, "Mentions of remote accounts").
 */
export async function resolveMentions(fed: Federation, text: string, timeoutMs = MENTION_RESOLVE_MS) {
  if (!fed.enabled) return
  const local = fed.localDomain.toLowerCase()
  const addresses = [
    ...new Map(
      [...text.matchAll(ANY_MENTION)]
        .filter((m) => m[2] && m[2].toLowerCase() !== local)
        .map((m) => [`${m[1]}@${m[2]}`.toLowerCase(), { username: m[1]!, domain: m[2]!.toLowerCase() }]),
    ).values(),
  ].slice(0, MAX_RESOLVED)
  if (!addresses.length) return
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))
  const all = Promise.all(
    addresses.map((a) =>
      resolveAcct(fed, a.username, a.domain).catch((err: unknown) =>
        fed.logger.info({ err, acct: `${a.username}@${a.domain}` }, 'mention not resolved'),
      ),
    ),
  )
  await Promise.race([all, deadline])
  clearTimeout(timer)
}
