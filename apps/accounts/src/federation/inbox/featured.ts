import type { AccountRow, StatusRow } from '../../db/rows'
import { findOrCreateTags } from '../../domain/tags'
import type { Federation } from '../transport/client'
import { fetchStatus, idOf, statusByUri } from './statuses'

/**
 * Pinned posts and featured hashtags of remote accounts (docs/federation.md, "Pinned posts and featured
 * hashtags"), as Mastodon's ActivityPub::Activity::Add and Remove and its FetchFeaturedCollectionService: an Add or
 * Remove whose `target` is the signer's own `featured` collection pins or unpins one of the signer's posts
 * (fetched when unknown); the whole collection, and the `featuredTags` one, are read again when the profile is
 * fetched (syncFeatured). Pins are rows of the same `status_pins` table as local ones.
 */

type Json = Record<string, unknown>

/** Posts of a remote featured collection taken at most (Mastodon's MAX_PINNED is 5; servers differ). */
const MAX_FEATURED = 20

/** Add (`pin`) or Remove of a post to or from the signer's `featured` collection; anything else is ignored. */
export async function featuredChange(fed: Federation, signer: AccountRow, activity: Json, pin: boolean) {
  const target = idOf(activity.target)
  if (!target || !signer.featured_url || target !== signer.featured_url) return
  const uri = idOf(activity.object)
  if (!uri) return
  const status = pin ? await fetchStatus(fed, uri) : await statusByUri(fed, fed.db, uri)
  if (!status || status.account_id !== signer.id || status.reblog_of_id) return
  if (pin)
    await fed
      .db('status_pins')
      .insert({ account_id: signer.id, status_id: status.id })
      .onConflict(['account_id', 'status_id'])
      .ignore()
  else await fed.db('status_pins').where({ account_id: signer.id, status_id: status.id }).delete()
}

/** The items of a collection: inline, or on its first page (one page is enough for featured posts). */
async function collectionItems(fed: Federation, url: string): Promise<unknown[]> {
  const collection = await fed.fetchJson(url)
  const items = (c: Json) => {
    const v = c.orderedItems ?? c.items
    return Array.isArray(v) ? v : []
  }
  if (items(collection).length) return items(collection)
  const first = collection.first
  if (typeof first === 'string') return items(await fed.fetchJson(first))
  return first && typeof first === 'object' ? items(first as Json) : []
}

/** The pinned posts of a remote account become `pinned`, in the order its `featured` collection gave them. */
export async function replacePins(fed: Federation, account: AccountRow, pinned: StatusRow[]) {
  await fed.db.transaction(async (trx) => {
    await trx('status_pins')
      .where({ account_id: account.id })
      .whereNotIn(
        'status_id',
        pinned.map((s) => s.id),
      )
      .delete()
    if (pinned.length)
      await trx('status_pins')
        .insert(pinned.map((s) => ({ account_id: account.id, status_id: s.id })))
        .onConflict(['account_id', 'status_id'])
        .ignore()
  })
}

/**
 * Reads a remote account's `featured` collection (its pinned posts, which replace those stored) and its
 * `featuredTags` collection (its featured hashtags), as Mastodon does when it fetches a profile. A collection that
 * cannot be read leaves what was stored.
 */
export async function syncFeatured(fed: Federation, account: AccountRow) {
  if (!account.domain) return
  if (account.featured_url) {
    try {
      const uris = (await collectionItems(fed, account.featured_url))
        .slice(0, MAX_FEATURED)
        .flatMap((i) => idOf(i) ?? [])
      const pinned: StatusRow[] = []
      for (const uri of uris) {
        const status = await fetchStatus(fed, uri)
        if (status && status.account_id === account.id && !status.reblog_of_id) pinned.push(status)
      }
      await replacePins(fed, account, pinned)
    } catch (err) {
      fed.logger.info({ err, account: account.uri }, 'featured collection could not be read')
    }
  }
  if (account.featured_tags_url) {
    try {
      const names = (await collectionItems(fed, account.featured_tags_url))
        .flatMap((t) =>
          t && typeof t === 'object' && (t as Json).type === 'Hashtag' && typeof (t as Json).name === 'string'
            ? [String((t as Json).name).replace(/^#/, '')]
            : [],
        )
        .slice(0, MAX_FEATURED)
      await fed.db.transaction(async (trx) => {
        await trx('featured_tags').where({ account_id: account.id }).delete()
        if (!names.length) return
        const tagIds = (await findOrCreateTags(trx, names)).map((t) => t.id)
        if (tagIds.length)
          await trx('featured_tags')
            .insert(tagIds.map((tag_id) => ({ account_id: account.id, tag_id })))
            .onConflict(['account_id', 'tag_id'])
            .ignore()
      })
    } catch (err) {
      fed.logger.info({ err, account: account.uri }, 'featuredTags collection could not be read')
    }
  }
}
