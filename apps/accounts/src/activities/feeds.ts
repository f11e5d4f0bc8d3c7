import type { HomeFeeds } from '../feeds/home'
import { clearAccount, fanOut, merge, regenerate, removeEverywhere, unmerge } from '../feeds/home'
import type { Consumer } from './consumer'

/**
 * Home feeds from activities (docs/feeds.md). Each handler re-reads the rows it needs, so an activity handled
 * late or twice does no harm: a follow that is gone merges nothing, a status that is gone fans out nowhere.
 */
export function feedsConsumer(h: HomeFeeds): Consumer {
  const exists = async (table: string, id: string) => !!(await h.db(table).where({ id }).first('id'))
  const follows = async (accountId: string, targetId: string) =>
    !!(await h.db('follows').where({ account_id: accountId, target_account_id: targetId }).first('id'))

  return {
    'status.created': (a) => fanOut(h, a.statusId),
    'reblog.created': (a) => fanOut(h, a.statusId),
    'status.deleted': (a) => removeEverywhere(h, a.accountId, { id: a.statusId, reblog_of_id: null }),
    'reblog.removed': (a) => removeEverywhere(h, a.accountId, { id: a.statusId, reblog_of_id: a.reblogOfId }),

    'follow.created': async (a) => {
      if (await exists('follows', a.followId)) await merge(h, a.accountId, a.targetAccountId)
    },
    'follow.removed': async (a) => {
      // Followed again since: the new follow's merge puts things back, and this must not take them out.
      if (!(await follows(a.accountId, a.targetAccountId))) await unmerge(h, a.accountId, a.targetAccountId)
    },
    'block.created': async (a) => {
      if (await exists('blocks', a.blockId)) await clearAccount(h, a.accountId, a.targetAccountId)
    },
    'mute.created': async (a) => {
      if (await exists('mutes', a.muteId)) await clearAccount(h, a.accountId, a.targetAccountId)
    },
    'mute.removed': async (a) => {
      if (await follows(a.accountId, a.targetAccountId)) await merge(h, a.accountId, a.targetAccountId)
    },

    'home_feed.missing': (a) => regenerate(h, a.accountId),
  }
}
