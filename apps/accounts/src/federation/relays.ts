import type { Knex } from '@roost/db'
import type { AccountRow, RelayRow } from '../db/rows'
import type { Federation } from './transport/client'
import type { Deliver } from './transport/delivery-queue'
import { AS } from './render/contexts'
import { instanceActorUri } from './uris'
import { deleteRemoteStatus, fetchStatus, idOf, isNoteLike, updateRemoteStatus } from './inbox/statuses'
import { FetchError } from './transport/client'

/**
 * Relays (docs/federation.md, "Relays"), as Mastodon's Relay and its admin pages: the instance actor follows a relay
 * (a `Follow` of `as:Public` to the relay's inbox, Mastodon's style; a `Follow` of the relay's actor to its inbox
 * when the admin gave the actor, the LitePub style), the relay's `Accept` or `Reject` sets the state, local public
 * posts go to accepted relays, and what a relay sends (an `Announce` of a post, or another server's `Create`
 * forwarded) is fetched from the post's own server and stored as a fetched status: it is in the federated
 * timeline, and in no home feed but those of the author's followers here. Disabling sends the `Undo`.
 */

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'
const ACTOR_TYPES = new Set(['Application', 'Service', 'Group', 'Person', 'Organization'])

/** Mastodon's relay states; `idle` is a disabled relay. */
export type RelayState = RelayRow['state']

/** The relay as the admin API shows it (a Roost addition: Mastodon has no API for relays). */
export const relayEntity = (row: RelayRow) => ({
  id: row.id,
  inbox_url: row.inbox_url,
  state: row.state,
  enabled: row.state === 'pending' || row.state === 'accepted',
  actor_uri: row.actor_uri,
  created_at: row.created_at.toISOString(),
})

/** The Follow the instance actor sends a relay: to `inbox`, of `object` (as:Public, or a LitePub relay's actor). */
export const renderRelayFollow = (fed: Federation, followId: string, object: string) => ({
  '@context': AS,
  id: followId,
  type: 'Follow',
  actor: instanceActorUri(fed.urls),
  object,
})

/**
 * A relay as a recipient of deliveries: inboxesOf (transport/delivery-queue.ts) takes accounts; a relay is its
 * inbox, shared or not, on its host.
 */
const recipientOf = (inbox: string) =>
  ({ id: '0', domain: new URL(inbox).host, inbox_url: inbox, shared_inbox_url: inbox }) as AccountRow

/** The accepted relays, as recipients of a local public post's Create, Update or Delete. */
export async function relayRecipients(db: Knex): Promise<AccountRow[]> {
  const rows: RelayRow[] = await db('relays').where({ state: 'accepted' })
  return rows.map((r) => recipientOf(r.delivery_inbox ?? r.inbox_url))
}

/** The relay an actor is: by the actor learned from its answer, or by the inbox the admin gave. */
export async function relayOf(db: Knex, signer: AccountRow): Promise<RelayRow | undefined> {
  if (!signer.uri) return undefined
  const inboxes = [signer.inbox_url, signer.uri].filter((v): v is string => !!v)
  return db('relays').where({ actor_uri: signer.uri }).orWhereIn('inbox_url', inboxes).orderBy('id').first()
}

/**
 * Sends the Follow of an enabled relay (the `relay.enabled` activity). The URL the admin gave is read first: an
 * actor document there (a LitePub relay's actor) is followed at its inbox; anything else is an inbox, followed with
 * `as:Public` as Mastodon does.
 */
export async function followRelay(fed: Federation, deliver: Deliver, relayId: string) {
  const relay: RelayRow | undefined = await fed.db('relays').where({ id: relayId }).first()
  if (!relay || relay.state !== 'pending' || !relay.follow_activity_id) return
  let inbox = relay.inbox_url
  let object = PUBLIC
  try {
    const doc = await fed.fetchJson(relay.inbox_url)
    if (ACTOR_TYPES.has(String(doc.type)) && typeof doc.inbox === 'string' && idOf(doc) === relay.inbox_url) {
      inbox = doc.inbox
      object = relay.inbox_url
    }
  } catch {
    // Not an actor (an inbox answers a GET with 404 or 405): Mastodon's style.
  }
  await fed
    .db('relays')
    .where({ id: relay.id })
    .update({ delivery_inbox: inbox, ...(object === PUBLIC ? {} : { actor_uri: object }) })
  await deliver(
    renderRelayFollow(fed, relay.follow_activity_id, object),
    null,
    [recipientOf(inbox)],
    `relay-follow-${relay.id}-${relay.follow_activity_id}`,
  )
}

/** The Undo of a relay's Follow (the `relay.disabled` activity: the relay is disabled or removed). */
export async function unfollowRelay(
  fed: Federation,
  deliver: Deliver,
  a: { relayId: string; inbox: string; followActivityId: string; object: string },
) {
  const actor = instanceActorUri(fed.urls)
  await deliver(
    {
      '@context': AS,
      id: `${a.followActivityId}/undo`,
      type: 'Undo',
      actor,
      object: { id: a.followActivityId, type: 'Follow', actor, object: a.object },
    },
    null,
    [recipientOf(a.inbox)],
    `relay-undo-${a.relayId}-${a.followActivityId}`,
  )
}

const typeOf = (v: unknown) => (v && typeof v === 'object' ? (v as { type?: unknown }).type : undefined)

/**
 * An activity whose signer is a relay (inbox/process.ts sends them all here, so that a relay's Announce never
 * becomes a boost by the relay): its Accept or Reject of our Follow, a LitePub relay's Follow of the instance actor
 * (accepted while the relay is enabled), and, from an accepted relay, an Announce of a post or a Create forwarded
 * from another server, whose post is fetched from its own server (never trusted as the relay gives it). The rest
 * is ignored.
 */
export async function relayActivity(
  fed: Federation,
  deliver: Deliver,
  relay: RelayRow,
  signer: AccountRow,
  activity: Record<string, unknown>,
) {
  const type = activity.type
  if (type === 'Accept' || type === 'Reject') {
    const followId = idOf(activity.object)
    if (!followId || followId !== relay.follow_activity_id || relay.state === 'idle') return
    await fed
      .db('relays')
      .where({ id: relay.id, follow_activity_id: followId })
      .update({
        state: type === 'Accept' ? 'accepted' : 'rejected',
        actor_uri: signer.uri,
        updated_at: fed.db.fn.now(),
      })
    return
  }
  if (type === 'Follow') {
    const uri = idOf(activity.id)
    if (!uri || idOf(activity.object) !== instanceActorUri(fed.urls) || relay.state === 'idle') return
    const actor = instanceActorUri(fed.urls)
    await deliver(
      {
        '@context': AS,
        id: `${actor}#accepts/relays/${relay.id}/${Date.now()}`,
        type: 'Accept',
        actor,
        object: { id: uri, type: 'Follow', actor: signer.uri, object: actor },
      },
      null,
      [signer],
      `relay-accept-${relay.id}-${Date.now()}`,
    )
    return
  }
  if (relay.state !== 'accepted') return
  if (type === 'Update' || type === 'Delete') return relayedChange(fed, activity)
  if (type === 'Announce' || type === 'Create') {
    const object = activity.object
    // An Announce of a Create (some relays) shares the Create's object.
    const post = typeOf(object) === 'Create' ? (object as Record<string, unknown>).object : object
    const uri = idOf(post)
    if (uri) await fetchStatus(fed, uri)
  }
}

/**
 * A forwarded Update or Delete of a post known here: what its own server answers now decides, never the relay's copy.
 * Gone there (404, 410 or a Tombstone) deletes it here; a post served anew updates it.
 */
async function relayedChange(fed: Federation, activity: Record<string, unknown>) {
  const uri = idOf(activity.object)
  const status = uri ? await fed.db('statuses').where({ uri }).whereNotNull('uri').first() : undefined
  if (!uri || !status) return
  const author: AccountRow | undefined = await fed.db('accounts').where({ id: status.account_id }).first()
  if (!author?.domain) return
  let doc: Record<string, unknown> | undefined
  try {
    doc = await fed.fetchJson(uri)
  } catch (err) {
    if (err instanceof FetchError && (err.status === 404 || err.status === 410))
      return deleteRemoteStatus(fed, author, uri)
    return
  }
  if (doc.type === 'Tombstone') return deleteRemoteStatus(fed, author, uri)
  if (isNoteLike(doc) && idOf(doc) === uri) await updateRemoteStatus(fed, author, doc)
}
