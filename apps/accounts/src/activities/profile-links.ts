import type { Federation } from '../federation/transport/client'
import { verifyAccountLinks } from '../federation/profile-links'
import type { Consumer } from './consumer'

/**
 * `account.links_changed`: the links of a profile's fields are verified (docs/federation.md, "Profile fields"),
 * each page read once through the SSRF-guarded client, bounded in size and time, as Mastodon's
 * VerifyAccountLinksWorker. Nothing is fetched when federation is off.
 */
export function profileLinksConsumer(fed: Federation): Consumer {
  return {
    'account.links_changed': async ({ accountId }, reads) => {
      if (!fed.enabled) return
      const account = await reads.account(accountId)
      if (!account || account.suspended_at) return
      await verifyAccountLinks(fed, account)
    },
  }
}
