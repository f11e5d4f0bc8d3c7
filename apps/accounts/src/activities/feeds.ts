import type { Feeds } from '../feeds/context'
import { fanOut, removeEverywhere, updated } from '../feeds/fanout'
import { clearAccount, merge, regenerate, unmerge } from '../feeds/home'
import {
  clearFromLists,
  mergeIntoList,
  mergeIntoLists,
  regenerateList,
  unmergeFromList,
  unmergeFromLists,
} from '../feeds/lists'
import { home, list } from '../feeds/store'
import { unmergeTag } from '../feeds/tags'
import type { Consumer } from './consumer'

/**
 * Home and list feeds from activities (docs/feeds.md). Each handler re-reads the rows it needs, so an activity
 * handled late or twice does no harm: a follow that is gone merges nothing, a status that is gone fans out nowhere.
 */
export function feedsConsumer(f: Feeds): Consumer {
  const exists = async (table: string, id: string) => !!(await f.db(table).where({ id }).first('id'))
  const follows = async (accountId: string, targetId: string) =>
    !!(await f.db('follows').where({ account_id: accountId, target_account_id: targetId }).first('id'))
  const inList = async (listId: string, accountId: string) =>
    !!(await f.db('list_accounts').where({ list_id: listId, account_id: accountId }).first('id'))

  return {
    'status.created': async (a, reads) => fanOut(f, await reads.status(a.statusId), false, reads),
    'reblog.created': async (a, reads) => fanOut(f, await reads.status(a.statusId), false, reads),
    'status.updated': async (a, reads) => updated(f, await reads.status(a.statusId), reads),
    'status.deleted': (a) => removeEverywhere(f, a.accountId, { id: a.statusId, reblog_of_id: null }),
    'reblog.removed': (a) => removeEverywhere(f, a.accountId, { id: a.statusId, reblog_of_id: a.reblogOfId }),

    'follow.created': async (a) => {
      if (!(await exists('follows', a.followId))) return
      await merge(f, a.accountId, a.targetAccountId)
      // Members added while the follow was a pending request join their lists' feeds now.
      await mergeIntoLists(f, a.accountId, a.targetAccountId)
    },
    'follow.removed': async (a) => {
      // Followed again since: the new follow's merge puts things back, and this must not take them out.
      if (await follows(a.accountId, a.targetAccountId)) return
      await unmerge(f, a.accountId, a.targetAccountId)
      await unmergeFromLists(f, a.accountId, a.targetAccountId)
    },
    'block.created': async (a) => {
      if (!(await exists('blocks', a.blockId))) return
      await clearAccount(f, a.accountId, a.targetAccountId)
      await clearFromLists(f, a.accountId, a.targetAccountId)
    },
    'mute.created': async (a) => {
      if (!(await exists('mutes', a.muteId))) return
      await clearAccount(f, a.accountId, a.targetAccountId)
      await clearFromLists(f, a.accountId, a.targetAccountId)
    },
    'mute.removed': async (a) => {
      if (!(await follows(a.accountId, a.targetAccountId))) return
      await merge(f, a.accountId, a.targetAccountId)
      await mergeIntoLists(f, a.accountId, a.targetAccountId)
    },

    'list_account.created': async (a) => {
      if (await exists('list_accounts', a.listAccountId)) await mergeIntoList(f, a.listId, a.targetAccountId)
    },
    'list_account.removed': async (a) => {
      if (!(await inList(a.listId, a.targetAccountId))) await unmergeFromList(f, a.listId, a.targetAccountId)
    },
    'list.deleted': (a) => f.store.drop(list(a.listId)),
    'tag_follow.removed': (a) => unmergeTag(f, a.accountId, a.tagId),

    'home_feed.created': (a) => f.store.start(home(a.accountId)),
    'home_feed.missing': (a) => regenerate(f, a.accountId),
    'list_feed.missing': (a) => regenerateList(f, a.listId),
  }
}
