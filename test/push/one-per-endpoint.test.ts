import { createDatabase, migrateSchema } from '@roost/db'
import { createSubscriberKeys, createTestDatabase, startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { migrations } from '../../apps/push/src/db/migrations'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { ALL_ALERTS, eventPublisher } from './helpers'

/**
 * One subscription per endpoint address (issue #31): a POST takes its endpoint from whichever token or user held
 * it, and the token's own earlier subscription goes too; the replaced token has no subscription any more, and no
 * push for the replaced owner reaches the endpoint (docs/security.md, "One push subscription per endpoint").
 */
let stack: Stack
let receiver: PushReceiver
let events: ReturnType<typeof eventPublisher>
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  events = eventPublisher(stack)
})
afterAll(async () => {
  await events.close()
  await stack.stop()
  await receiver.close()
})
afterEach(() => expect(receiver.problems).toEqual([]))

const PATH = '/api/v1/push/subscription'

interface Device {
  endpoint: string
  keys: { p256dh: string; auth: string }
}

/** A device nobody pushes to: an endpoint and keys, for the API tests. */
function device(): Device {
  const keys = createSubscriberKeys()
  return {
    endpoint: `https://push.example.test/${Math.random().toString(36).slice(2)}`,
    keys: { p256dh: keys.p256dh, auth: keys.auth },
  }
}

const subscribe = (token: string, at: Device) =>
  stack
    .api()
    .post(PATH)
    .set(bearer(token))
    .send({ subscription: { ...at, standard: true }, data: { alerts: ALL_ALERTS } })

const rowsAt = (endpoint: string) => stack.push.db('subscriptions').where('endpoint', endpoint)

/** The replaced token has no subscription: GET and PUT 404 as without one, DELETE `{}` and removes nothing. */
async function expectNoSubscription(token: string) {
  expect((await stack.api().get(PATH).set(bearer(token)).expect(404)).body).toEqual({ error: 'Not Found' })
  await stack
    .api()
    .put(PATH)
    .set(bearer(token))
    .send({ data: { alerts: { mention: true } } })
    .expect(404)
  expect((await stack.api().delete(PATH).set(bearer(token)).expect(200)).body).toEqual({})
}

describe('one subscription per endpoint', () => {
  it.each([
    ['two tokens of one user', true],
    ['two users', false],
  ])('%s: the second POST of an endpoint replaces the first', async (_case, sameUser) => {
    const first = await stack.createUser()
    const second = sameUser ? first : await stack.createUser()
    const [firstToken, secondToken] = [
      await stack.userToken('push', first),
      await stack.userToken('push', second),
    ]
    const at = device()
    const old = await subscribe(firstToken, at).expect(200)
    const mine = await subscribe(secondToken, at).expect(200)
    expect(mine.body.id).not.toBe(old.body.id)

    const rows = await rowsAt(at.endpoint)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      id: String(mine.body.id),
      user_id: second.userId,
      access_token: secondToken,
    })

    await expectNoSubscription(firstToken)
    // The replaced token's DELETE left the new owner's subscription alone.
    expect((await stack.api().get(PATH).set(bearer(secondToken)).expect(200)).body).toEqual(mine.body)
    expect(await rowsAt(at.endpoint)).toHaveLength(1)
  })

  it("a POST removes the token's own earlier subscription at another endpoint too", async () => {
    const [token, other] = [await stack.userToken('push'), await stack.userToken('push')]
    const [a, b] = [device(), device()]
    await subscribe(token, a).expect(200)
    await subscribe(other, b).expect(200)
    // The token moves to b: its row at a goes, and so does the other token's row at b.
    const moved = await subscribe(token, b).expect(200)
    expect(await rowsAt(a.endpoint)).toEqual([])
    expect((await rowsAt(b.endpoint)).map((r) => r.access_token)).toEqual([token])
    expect((await stack.api().get(PATH).set(bearer(token)).expect(200)).body).toEqual(moved.body)
    await expectNoSubscription(other)
  })

  it('after DELETE a lookup by the endpoint finds nothing, through either token', async () => {
    const user = await stack.createUser()
    const [first, second] = [await stack.userToken('push', user), await stack.userToken('push', user)]
    const at = device()
    await subscribe(first, at).expect(200)
    await subscribe(second, at).expect(200)
    expect((await stack.api().delete(PATH).set(bearer(second)).expect(200)).body).toEqual({})
    expect(await rowsAt(at.endpoint)).toEqual([])
    for (const token of [first, second]) await stack.api().get(PATH).set(bearer(token)).expect(404)
  })

  it('20 parallel POSTs of one endpoint by 20 tokens leave one row, and only its token sees it', async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, () => stack.userToken('push')))
    const at = device()
    const answers = await Promise.all(tokens.map((token) => subscribe(token, at)))
    expect(answers.map((a) => a.status)).toEqual(tokens.map(() => 200))
    const rows = await rowsAt(at.endpoint)
    expect(rows).toHaveLength(1)
    const owner = rows[0].access_token as string
    expect(tokens).toContain(owner)
    // The owner is the last POST to commit: its answer is the row.
    expect(answers[tokens.indexOf(owner)]!.body.id).toBe(Number(rows[0].id))
    const seen = await Promise.all(tokens.map((token) => stack.api().get(PATH).set(bearer(token))))
    expect(seen.map((res) => res.status)).toEqual(tokens.map((token) => (token === owner ? 200 : 404)))
  })
})

describe('pushes after a replacement', () => {
  /** A device whose push service is the receiver, answering `answers` first, then 201. */
  function receiving(answers: Parameters<PushReceiver['subscriber']>[0] = []): Device {
    const subscriber = receiver.subscriber(answers)
    return { endpoint: subscriber.endpoint, keys: subscriber.keys }
  }
  const tokenOf = (m: { payload: Record<string, unknown> }) => m.payload.access_token

  it.each([
    ['another user', false],
    ['another token of the same user', true],
  ])(
    'once %s takes the endpoint, a push for the replaced subscription never reaches it',
    async (_case, sameUser) => {
      const ann = await stack.createUser()
      const ben = sameUser ? ann : await stack.createUser()
      const [annToken, benToken] = [await stack.userToken('push', ann), await stack.userToken('push', ben)]
      // One device (its endpoint and keys), on which Ann and then Ben subscribe, as two accounts in one app do.
      const at = receiving()
      await subscribe(annToken, at).expect(200)
      await subscribe(benToken, at).expect(200)

      const forAnn = events.event(ann, 'mention')
      const forBen = events.event(ben, 'follow')
      await events.publish(forAnn)
      await events.publish(forBen)
      await receiver.waitFor(() => receiver.messagesFor(at.endpoint).length >= (sameUser ? 2 : 1))
      await stack.drain()

      const messages = receiver.messagesFor(at.endpoint)
      // Each notification at most once, and only with the new owner's token: never Ann's.
      expect(messages.map(tokenOf)).toEqual(messages.map(() => benToken))
      expect(messages.map((m) => m.payload.notification_id).sort()).toEqual(
        (sameUser ? [forAnn, forBen] : [forBen]).map((e) => Number(e.notificationId)).sort(),
      )
    },
  )

  it('a retry queued for the replaced subscription is not sent to the endpoint', async () => {
    const [ann, ben] = [await stack.createUser(), await stack.createUser()]
    const [annToken, benToken] = [await stack.userToken('push', ann), await stack.userToken('push', ben)]
    // The device's push service answers Ann's first push with a 500: the push worker queues a retry job, keyed on
    // Ann's subscription.
    const at = receiving([{ status: 500 }])
    const annSubscription = await subscribe(annToken, at).expect(200)

    receiver.hold()
    const forAnn = events.event(ann, 'mention')
    await events.publish(forAnn)
    // Ann's push is at the push service, unanswered, when Ben takes the endpoint.
    await receiver.waitFor(() => receiver.pending === 1)
    await subscribe(benToken, at).expect(200)
    receiver.release()
    await receiver.waitFor(() => receiver.messagesFor(at.endpoint).length === 1)
    await stack.drain()
    const retries = await stack.pushWorker.queues.deliveries.getJobs(['completed'])
    expect(retries.map((job) => job.id)).toContain(`${forAnn.notificationId}-${annSubscription.body.id}`)

    // The 500 was the only push of Ann's: the retry found her subscription gone and sent nothing.
    expect(receiver.messagesFor(at.endpoint).map((m) => [tokenOf(m), m.status])).toEqual([[annToken, 500]])

    const forBen = events.event(ben, 'favourite')
    await events.publish(forBen)
    await receiver.waitFor(() => receiver.messagesFor(at.endpoint).length === 2)
    await stack.drain()
    expect(receiver.messagesFor(at.endpoint).map((m) => [tokenOf(m), m.status])).toEqual([
      [annToken, 500],
      [benToken, 201],
    ])
  })
})

describe('migration 20261128100000_endpoint_unique', () => {
  it('keeps the newest row of each endpoint, then makes the endpoint unique', async () => {
    // A schema of its own, migrated up to the migration before this one; each migration run on a connection of its
    // own, as `npm run migrate` does.
    const schema = 'push_before_endpoint_unique'
    const url = await createTestDatabase()
    const before = migrations.findIndex((m) => m.name === '20261128100000_endpoint_unique')
    await migrateSchema(url, schema, migrations.slice(0, before))
    const db = createDatabase(url, schema)
    try {
      const keys = createSubscriberKeys()
      const row = (endpoint: string, n: number) => ({
        endpoint,
        key_p256dh: keys.p256dh,
        key_auth: keys.auth,
        user_id: String(100 + n),
        access_token_id: String(n),
        access_token: `token-${n}`,
      })
      const shared = 'https://push.example.test/shared'
      const alone = 'https://push.example.test/alone'
      await db('subscriptions').insert([row(shared, 1), row(alone, 2), row(shared, 3), row(shared, 4)])

      expect(await migrateSchema(url, schema, migrations)).toEqual(['20261128100000_endpoint_unique'])
      const left = await db('subscriptions').orderBy('id').select('endpoint', 'access_token')
      expect(left).toEqual([
        { endpoint: alone, access_token: 'token-2' },
        { endpoint: shared, access_token: 'token-4' },
      ])
      await expect(db('subscriptions').insert(row(shared, 5))).rejects.toMatchObject({ code: '23505' })
    } finally {
      await db.destroy()
    }
  })
})
