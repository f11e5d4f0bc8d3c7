import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { channels } from '@roost/events'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { subscribedUser } from '../push/helpers'
import { openSocket } from '../streaming/helpers'

/**
 * Filtered notifications (docs/discovery.md, "Notification policy and requests"): the policy API, each policy
 * field at notification time, requests accepted and dismissed, `include_filtered`, and that a filtered
 * notification is neither pushed nor streamed.
 */
let stack: Stack
let receiver: PushReceiver
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
}, 60_000)
afterAll(async () => {
  await stack?.stop()
  await receiver?.close()
})
afterEach(() => expect(receiver.problems).toEqual([]))

const db = () => stack.accounts.ctx.db

function setPolicy(user: TestUser, policy: Record<string, string>) {
  return stack.api().patch('/api/v2/notifications/policy').set(bearer(user.token)).send(policy)
}

/** The recipient's notifications as the API lists them (after the workers are done). */
async function listed(user: TestUser, query = '') {
  await stack.drain()
  const res = await user.get(`/api/v1/notifications${query}`).expect(200)
  return res.body as { id: string; type: string; filtered?: boolean; account: { id: string } }[]
}

const fromSender = <N extends { account: { id: string } }>(notifications: N[], sender: TestUser) =>
  notifications.filter((n) => n.account.id === sender.id)

/** Makes `account` older than 30 days (not a new account). */
const age = (account: TestUser) =>
  db()('accounts')
    .where({ id: account.id })
    .update({ created_at: db().raw("now() - interval '60 days'") })

describe('GET and PATCH /api/v2/notifications/policy', () => {
  it('shows Mastodon’s defaults with a summary, changes the fields given and refuses other values', async () => {
    const user = await signUp(stack)
    const shown = await user.get('/api/v2/notifications/policy').expect(200)
    expect(shown.body).toEqual({
      for_not_following: 'accept',
      for_not_followers: 'accept',
      for_new_accounts: 'accept',
      for_private_mentions: 'filter',
      for_limited_accounts: 'filter',
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    })
    const changed = await setPolicy(user, { for_not_following: 'drop', for_new_accounts: 'filter' }).expect(
      200,
    )
    expect(changed.body).toMatchObject({
      for_not_following: 'drop',
      for_new_accounts: 'filter',
      for_private_mentions: 'filter',
    })
    expect((await user.get('/api/v2/notifications/policy')).body.for_not_following).toBe('drop')
    const bad = await setPolicy(user, { for_not_followers: 'ignore' }).expect(422)
    expect(bad.body.error).toMatch(/not included in the list/)

    // The v1 shape: booleans, drop shown as filtering; false sets accept.
    const v1 = await user.get('/api/v1/notifications/policy').expect(200)
    expect(v1.body).toEqual({
      filter_not_following: true,
      filter_not_followers: false,
      filter_new_accounts: true,
      filter_private_mentions: true,
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    })
    await stack
      .api()
      .patch('/api/v1/notifications/policy')
      .set(bearer(user.token))
      .send({ filter_not_following: false })
      .expect(200)
    expect((await user.get('/api/v2/notifications/policy')).body.for_not_following).toBe('accept')

    // Scopes as Mastodon's: reading needs read:notifications, changing write:notifications.
    const reader = await stack.userToken('read:notifications', user)
    await stack.api().get('/api/v2/notifications/policy').set(bearer(reader)).expect(200)
    await stack.api().patch('/api/v2/notifications/policy').set(bearer(reader)).send({}).expect(403)
    await stack.api().get('/api/v1/notifications/requests').set(bearer(reader)).expect(200)
    await stack.api().post('/api/v1/notifications/requests/dismiss').set(bearer(reader)).expect(403)
  })
})

describe('filtering at notification time', () => {
  it('files a stranger’s private mention as a request (no push, no streaming) until it is accepted', async () => {
    const owner = await subscribedUser(stack, receiver)
    const ownerToken = await stack.userToken('read write follow', owner)
    const me: TestUser = {
      ...owner,
      id: owner.accountId,
      token: ownerToken,
      get: (path: string) => stack.api().get(path).set(bearer(ownerToken)),
      post: (path: string, body?: object) => {
        const req = stack.api().post(path).set(bearer(ownerToken))
        return body ? req.send(body) : req
      },
      delete: (path: string) => stack.api().delete(path).set(bearer(ownerToken)),
    }
    const socket = await openSocket(stack, '?stream=user:notification', { protocols: [ownerToken] })
    await eventually(async () => stack.streaming.hub.isLive(channels.notifications(me.id), 1))
    const stranger = await signUp(stack)
    const friend = await signUp(stack)
    await me.post(`/api/v1/accounts/${friend.id}/follow`).expect(200)

    const dm = await post(stranger, { status: `@${me.username} psst`, visibility: 'direct' })
    await stack.drain()
    // A mention from someone followed comes after it: pushed and streamed, the only one.
    await post(friend, `@${me.username} hello in public`)
    const streamed = await socket.inbox.next((m) => m.event === 'notification')
    expect(JSON.parse(streamed.payload!).account.id).toBe(friend.id)
    await receiver.waitFor(() => receiver.messagesFor(owner.endpoint).length >= 1, 15_000)
    await stack.drain()
    expect(receiver.messagesFor(owner.endpoint).map((m) => m.payload.notification_type)).toEqual(['mention'])
    expect(socket.inbox.events('notification')).toHaveLength(1)

    // Out of the list, the unread counts and the grouped list, but there with include_filtered.
    expect(fromSender(await listed(me), stranger)).toEqual([])
    expect((await me.get('/api/v1/notifications/unread_count').expect(200)).body).toEqual({ count: 1 })
    expect((await me.get('/api/v2/notifications/unread_count').expect(200)).body).toEqual({ count: 1 })
    const grouped = await me.get('/api/v2/notifications').expect(200)
    expect(grouped.body.notification_groups).toHaveLength(1)
    const withFiltered = fromSender(await listed(me, '?include_filtered=true'), stranger)
    expect(withFiltered).toMatchObject([{ type: 'mention', filtered: true }])
    const groupedWith = await me.get('/api/v2/notifications?include_filtered=true').expect(200)
    expect(groupedWith.body.notification_groups).toHaveLength(2)
    expect((await me.get('/api/v1/conversations').expect(200)).body).toEqual([])

    // One request from the stranger, in the policy's summary.
    const requests = await me.get('/api/v1/notifications/requests').expect(200)
    expect(requests.body).toMatchObject([
      { notifications_count: '1', account: { id: stranger.id }, last_status: { id: dm } },
    ])
    const summary = (await me.get('/api/v2/notifications/policy')).body.summary
    expect(summary).toEqual({ pending_requests_count: 1, pending_notifications_count: 1 })
    const requestId = requests.body[0].id
    expect((await me.get(`/api/v1/notifications/requests/${requestId}`).expect(200)).body.id).toBe(requestId)
    await signUp(stack).then((other) => other.get(`/api/v1/notifications/requests/${requestId}`).expect(404))

    // Accepted: the notification joins the list and the conversation, and the sender is never filtered again.
    await me.post(`/api/v1/notifications/requests/${requestId}/accept`).expect(200, {})
    expect(await socket.inbox.next((m) => m.event === 'notifications_merged')).toMatchObject({ payload: '1' })
    expect((await me.get('/api/v1/notifications/requests/merged').expect(200)).body).toEqual({ merged: true })
    expect(fromSender(await listed(me), stranger)).toMatchObject([{ type: 'mention' }])
    expect(fromSender(await listed(me), stranger)[0]!.filtered).toBeUndefined()
    expect((await me.get('/api/v1/conversations').expect(200)).body).toMatchObject([
      { last_status: { id: dm } },
    ])
    await me.get(`/api/v1/notifications/requests/${requestId}`).expect(404)
    await post(stranger, { status: `@${me.username} again`, visibility: 'direct' })
    expect(fromSender(await listed(me), stranger)).toHaveLength(2)
    expect((await me.get('/api/v1/notifications/requests').expect(200)).body).toEqual([])
    await socket.close()
  })

  it('for_not_following: filter keeps every filterable type, drop stores nothing, accept lets all in', async () => {
    const me = await signUp(stack)
    const stranger = await signUp(stack)
    const mine = await post(me, 'my post')
    await setPolicy(me, { for_not_following: 'filter' }).expect(200)
    await stranger.post(`/api/v1/statuses/${mine}/favourite`).expect(200)
    await post(stranger, `@${me.username} a public mention`)
    expect(fromSender(await listed(me), stranger)).toEqual([])
    expect(
      fromSender(await listed(me, '?include_filtered=true'), stranger)
        .map((n) => n.type)
        .sort(),
    ).toEqual(['favourite', 'mention'])
    // Only mentions make a request.
    expect((await me.get('/api/v1/notifications/requests')).body).toMatchObject([
      { account: { id: stranger.id }, notifications_count: '1' },
    ])

    const dropped = await signUp(stack)
    await setPolicy(me, { for_not_following: 'drop' }).expect(200)
    await dropped.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    await post(dropped, `@${me.username} you will not see this`)
    expect(fromSender(await listed(me, '?include_filtered=true'), dropped)).toEqual([])
    expect(await db()('notifications').where({ account_id: me.id, from_account_id: dropped.id })).toEqual([])

    // Someone the recipient follows is never caught by it.
    await me.post(`/api/v1/accounts/${dropped.id}/follow`).expect(200)
    await post(dropped, `@${me.username} now you follow me`)
    expect(fromSender(await listed(me), dropped)).toMatchObject([{ type: 'mention' }])

    const welcome = await signUp(stack)
    await setPolicy(me, { for_not_following: 'accept' }).expect(200)
    await welcome.post(`/api/v1/statuses/${mine}/favourite`).expect(200)
    expect(fromSender(await listed(me), welcome)).toMatchObject([{ type: 'favourite' }])
  })

  it('for_not_followers: a follower of less than three days is not one yet', async () => {
    const me = await signUp(stack)
    const follower = await signUp(stack)
    await setPolicy(me, { for_not_followers: 'filter' }).expect(200)
    await follower.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    await post(follower, `@${me.username} first`)
    // The follow itself (filterable) and the mention are filtered.
    expect(fromSender(await listed(me), follower)).toEqual([])
    await db()('follows')
      .where({ account_id: follower.id, target_account_id: me.id })
      .update({ created_at: db().raw("now() - interval '4 days'") })
    await post(follower, `@${me.username} second`)
    expect(fromSender(await listed(me), follower)).toMatchObject([{ type: 'mention' }])
  })

  it('for_new_accounts: accounts younger than 30 days, unless followed', async () => {
    const me = await signUp(stack)
    const young = await signUp(stack)
    const old = await signUp(stack)
    await age(old)
    await setPolicy(me, { for_new_accounts: 'drop' }).expect(200)
    await post(young, `@${me.username} from a new account`)
    await post(old, `@${me.username} from an old account`)
    expect(fromSender(await listed(me, '?include_filtered=true'), young)).toEqual([])
    expect(fromSender(await listed(me), old)).toHaveLength(1)
    await me.post(`/api/v1/accounts/${young.id}/follow`).expect(200)
    await post(young, `@${me.username} followed now`)
    expect(fromSender(await listed(me), young)).toHaveLength(1)
  })

  it('for_limited_accounts: a silenced sender is filtered by default, dropped or accepted as set', async () => {
    const me = await signUp(stack)
    const limited = await signUp(stack)
    await db()('accounts').where({ id: limited.id }).update({ silenced_at: db().fn.now() })
    await post(limited, `@${me.username} limited one`)
    expect(fromSender(await listed(me), limited)).toEqual([])
    expect(fromSender(await listed(me, '?include_filtered=true'), limited)).toHaveLength(1)
    await setPolicy(me, { for_limited_accounts: 'drop' }).expect(200)
    await post(limited, `@${me.username} limited two`)
    expect(fromSender(await listed(me, '?include_filtered=true'), limited)).toHaveLength(1)
    await setPolicy(me, { for_limited_accounts: 'accept' }).expect(200)
    await post(limited, `@${me.username} limited three`)
    expect(fromSender(await listed(me), limited)).toHaveLength(1)
  })

  it('for_private_mentions: a direct reply to the recipient’s own private mention is not filtered', async () => {
    const me = await signUp(stack)
    const stranger = await signUp(stack)
    const mine = await post(me, { status: `@${stranger.username} hi, privately`, visibility: 'direct' })
    await post(stranger, { status: `@${me.username} hi back`, visibility: 'direct', in_reply_to_id: mine })
    expect(fromSender(await listed(me), stranger)).toMatchObject([{ type: 'mention' }])
    await setPolicy(me, { for_private_mentions: 'accept' }).expect(200)
    const other = await signUp(stack)
    await post(other, { status: `@${me.username} out of the blue`, visibility: 'direct' })
    expect(fromSender(await listed(me), other)).toHaveLength(1)
  })
})

describe('/api/v1/notifications/requests', () => {
  it('pages by Link headers, and dismisses and accepts in bulk', async () => {
    const me = await signUp(stack)
    const senders = [await signUp(stack), await signUp(stack), await signUp(stack)]
    for (const sender of senders) await post(sender, { status: `@${me.username} dm`, visibility: 'direct' })
    await post(senders[0]!, { status: `@${me.username} dm 2`, visibility: 'direct' })
    await stack.drain()

    const first = await me.get('/api/v1/notifications/requests?limit=2').expect(200)
    expect(first.body.map((r: { account: { id: string } }) => r.account.id)).toEqual([
      senders[2]!.id,
      senders[1]!.id,
    ])
    const next = links(first.headers.link).next!
    expect(next).toContain('limit=2')
    const second = await me.get(onStack(stack, next)).expect(200)
    expect(second.body).toMatchObject([{ account: { id: senders[0]!.id }, notifications_count: '2' }])
    const prev = await me.get(onStack(stack, links(second.headers.link).prev!)).expect(200)
    expect(prev.body).toHaveLength(2)
    expect((await me.get('/api/v2/notifications/policy')).body.summary).toEqual({
      pending_requests_count: 3,
      pending_notifications_count: 4,
    })

    // Dismissed: the request and its filtered notifications are gone; the sender's next mention is filtered again.
    const ids = Object.fromEntries(
      [...first.body, ...second.body].map((r: { id: string; account: { id: string } }) => [
        r.account.id,
        r.id,
      ]),
    )
    await me
      .post('/api/v1/notifications/requests/dismiss', { id: [ids[senders[0]!.id], '999'] })
      .expect(200, {})
    expect(fromSender(await listed(me, '?include_filtered=true'), senders[0]!)).toEqual([])
    await post(senders[0]!, { status: `@${me.username} dm 3`, visibility: 'direct' })
    await stack.drain()
    expect((await me.get('/api/v1/notifications/requests')).body).toHaveLength(3)

    await me
      .post('/api/v1/notifications/requests/accept', { id: [ids[senders[1]!.id], ids[senders[2]!.id]] })
      .expect(200, {})
    expect(fromSender(await listed(me), senders[1]!)).toHaveLength(1)
    expect(fromSender(await listed(me), senders[2]!)).toHaveLength(1)
    expect((await me.get('/api/v1/notifications/requests')).body).toMatchObject([
      { account: { id: senders[0]!.id } },
    ])

    const single = (await me.get('/api/v1/notifications/requests')).body[0].id
    await me.post(`/api/v1/notifications/requests/${single}/dismiss`).expect(200, {})
    expect((await me.get('/api/v1/notifications/requests')).body).toEqual([])
    await me.post(`/api/v1/notifications/requests/${single}/accept`).expect(404)
    await me.post('/api/v1/notifications/requests/abc/dismiss').expect(404)
  })
})
