import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { PERMISSION_FLAGS } from '@roost/routes'
import { ALL_ALERTS, subscribedUser } from '../push/helpers'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * A moderator unsubscribes a local account from push (docs/moderation.md, "Unsubscribing from push"): the request
 * goes through accounts' outbox and the `account-events` queue to the push worker, which deletes every subscription
 * of the user, whichever token made it.
 */
let stack: Stack
let receiver: PushReceiver
let moderatorToken: string
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMITS: 'off' } })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  const moderator = await stack.createUser({ role: 'moderator' })
  moderatorToken = await stack.userToken('read admin:read admin:write', moderator)
})
afterAll(async () => {
  await stack.stop()
  await receiver.close()
})
afterEach(() => expect(receiver.problems).toEqual([]))

const unsubscribe = (id: string, token = moderatorToken) =>
  stack.api().post(`/api/v1/admin/accounts/${id}/unsubscribe_push`).set(bearer(token))
const subscription = (token: string) => stack.api().get('/api/v1/push/subscription').set(bearer(token))

async function mention(author: string, target: string) {
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(author))
    .send({ status: `@${target} are you there?` })
    .expect(200)
  await stack.drain()
}

it('removes every subscription of the account; nothing more is pushed until it subscribes again', async () => {
  const owner = await subscribedUser(stack, receiver)
  // A second device: another token of the same user, its own subscription.
  const secondToken = await stack.userToken('push', owner)
  const secondDevice = receiver.subscriber()
  await stack
    .api()
    .post('/api/v1/push/subscription')
    .set(bearer(secondToken))
    .send({
      subscription: { endpoint: secondDevice.endpoint, keys: secondDevice.keys },
      data: { alerts: ALL_ALERTS },
    })
    .expect(200)
  // Someone else's subscription stays.
  const bystander = await subscribedUser(stack, receiver)
  const bob = await stack.userToken('read write', await stack.createUser({ username: 'bob_unsub' }))

  // Before: a mention is pushed to both devices.
  await mention(bob, owner.username)
  await receiver.waitFor(
    () =>
      receiver.messagesFor(owner.endpoint).length === 1 &&
      receiver.messagesFor(secondDevice.endpoint).length === 1,
  )

  const res = await unsubscribe(owner.accountId).expect(200)
  expect(res.body).toMatchObject({ id: owner.accountId, username: owner.username, suspended: false })
  await stack.drain()
  await subscription(owner.token).expect(404)
  await subscription(secondToken).expect(404)
  await subscription(bystander.token).expect(200)

  // After: a new mention is a notification, but no push.
  await mention(bob, owner.username)
  const notifications = await stack
    .api()
    .get('/api/v1/notifications?types[]=mention')
    .set(bearer(await stack.userToken('read', owner)))
    .expect(200)
  expect(notifications.body).toHaveLength(2)
  expect(receiver.messagesFor(owner.endpoint)).toHaveLength(1)
  expect(receiver.messagesFor(secondDevice.endpoint)).toHaveLength(1)

  // The audit log says who did it, to whom.
  const log = await stack
    .api()
    .get(`/api/v1/admin/action_logs?action=unsubscribe_push&target_id=${owner.accountId}`)
    .set(bearer(await stack.userToken('admin:read', await stack.createUser({ role: 'admin' }))))
    .expect(200)
  expect(log.body).toEqual([
    expect.objectContaining({
      action: 'unsubscribe_push',
      target_type: 'Account',
      target_id: owner.accountId,
      human_identifier: owner.username,
    }),
  ])

  // The token was not revoked: it subscribes again, and pushes resume.
  const again = receiver.subscriber()
  await stack
    .api()
    .post('/api/v1/push/subscription')
    .set(bearer(owner.token))
    .send({ subscription: { endpoint: again.endpoint, keys: again.keys }, data: { alerts: ALL_ALERTS } })
    .expect(200)
  await mention(bob, owner.username)
  await receiver.waitFor(() => receiver.messagesFor(again.endpoint).length === 1)
})

it('403 for a role without manage_users, 422 for a remote account, 404 for an unknown one', async () => {
  const target = await stack.createUser()
  const db = stack.accounts.ctx.db
  const [{ id }] = (await db.raw('SELECT snowflake_id()::text AS id')).rows
  await db('user_roles').insert({
    id,
    key: id,
    name: 'Reports only',
    permissions: PERMISSION_FLAGS.manage_reports,
    position: 5,
  })
  const reportsOnly = await stack.userToken('admin:write', await stack.createUser({ role: id }))
  await unsubscribe(target.accountId, reportsOnly).expect(403, { error: 'This action is not allowed' })

  const domain = 'remote.example'
  const [remote] = await db('accounts')
    .insert({ username: 'faraway', domain, uri: `https://${domain}/users/faraway` })
    .returning('id')
  const refused = await unsubscribe(String(remote.id)).expect(422)
  expect(refused.body).toEqual({ error: expect.any(String) })

  await unsubscribe('99999').expect(404, { error: 'Record not found' })
  await unsubscribe('not-an-id').expect(404)
  // None of them was logged.
  const admin = await stack.userToken('admin:read', await stack.createUser({ role: 'admin' }))
  const log = await stack.api().get('/api/v1/admin/action_logs?action=unsubscribe_push').set(bearer(admin))
  expect(log.body.map((l: { target_id: string }) => l.target_id)).not.toContain(target.accountId)
  expect(log.body.map((l: { target_id: string }) => l.target_id)).not.toContain(String(remote.id))
})
