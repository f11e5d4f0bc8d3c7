import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Inbox ordering (docs/federation.md, "Inboxes"): the inbox queue runs an actor's activities concurrently, yet a
 * Follow followed at once by its Undo ends with no follow, whichever the worker handles first.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let carol: TestUser
let mallory: PeerActor
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  carol = await signUp(stack, { username: 'carol' })
  await stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${carol.token}`)
    .send({ locked: true })
    .expect(200)
  mallory = peer.actor('mallory')
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
let n = 0
const follow = (target: string) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${mallory.uri}#follows/${++n}`,
  type: 'Follow',
  actor: mallory.uri,
  object: `${stack.url}/users/${target}`,
})
const undo = (object: ReturnType<typeof follow>) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${object.id}/undo`,
  type: 'Undo',
  actor: mallory.uri,
  object,
})
const relations = async () => {
  const remote = await db()('accounts').where({ uri: mallory.uri }).first('id')
  const count = async (table: string) =>
    Number((await db()(table).where({ account_id: remote.id }).count('* as n'))[0]!.n)
  return { follows: await count('follows'), requests: await count('follow_requests') }
}

it('ends with no follow after a Follow and its Undo sent back to back, many times over', async () => {
  // Both inboxes are POSTed at once, so that the worker takes them up together.
  for (let i = 0; i < 10; i++) {
    const f = follow(i % 2 ? 'carol' : 'alice')
    const answers = await Promise.all([peer.post(inbox(), mallory, f), peer.post(inbox(), mallory, undo(f))])
    expect(answers.map((a) => a.status)).toEqual([202, 202])
  }
  await stack.drain(60_000)
  expect(await relations()).toEqual({ follows: 0, requests: 0 })
  const aliceAccount = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body
  expect(aliceAccount.followers_count).toBe(0)
})

it('does nothing with a Follow that arrives after its Undo; a new Follow follows', async () => {
  const f = follow('alice')
  expect((await peer.post(inbox(), mallory, undo(f))).status).toBe(202)
  await stack.drain(60_000)
  expect((await peer.post(inbox(), mallory, f)).status).toBe(202)
  await stack.drain(60_000)
  expect(await relations()).toEqual({ follows: 0, requests: 0 })

  // A new Follow is a follow.
  expect((await peer.post(inbox(), mallory, follow('alice'))).status).toBe(202)
  await stack.drain(60_000)
  expect(await relations()).toEqual({ follows: 1, requests: 0 })
  const aliceAccount = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body
  expect(aliceAccount.followers_count).toBe(1)
})

describe('Like and Announce of a local post, and their Undos', () => {
  let post: { id: string; uri: string }
  beforeAll(async () => {
    post = (
      await alice
        .post('/api/v1/statuses', { status: 'Liked and boosted, or not', visibility: 'public' })
        .expect(200)
    ).body
  })
  const interaction = (type: 'Like' | 'Announce') => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${mallory.uri}#${type.toLowerCase()}s/${++n}`,
    type,
    actor: mallory.uri,
    object: post.uri,
    ...(type === 'Announce'
      ? { to: ['https://www.w3.org/ns/activitystreams#Public'], cc: [`${mallory.uri}/followers`] }
      : {}),
  })
  const counts = async () => {
    const status = (await alice.get(`/api/v1/statuses/${post.id}`).expect(200)).body
    return { favourites: status.favourites_count, reblogs: status.reblogs_count }
  }

  it('ends with neither after each is sent back to back with its Undo, many times over', async () => {
    for (let i = 0; i < 10; i++) {
      const like = interaction('Like')
      const announce = interaction('Announce')
      const answers = await Promise.all([
        peer.post(inbox(), mallory, like),
        peer.post(inbox(), mallory, undo(like as never)),
        peer.post(inbox(), mallory, announce),
        peer.post(inbox(), mallory, undo(announce as never)),
      ])
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202])
    }
    await stack.drain(60_000)
    expect(await counts()).toEqual({ favourites: 0, reblogs: 0 })
  })

  it('does nothing with a Like or an Announce that arrives after its Undo; new ones count', async () => {
    const like = interaction('Like')
    const announce = interaction('Announce')
    for (const activity of [undo(like as never), undo(announce as never)])
      expect((await peer.post(inbox(), mallory, activity)).status).toBe(202)
    await stack.drain(60_000)
    for (const activity of [like, announce])
      expect((await peer.post(inbox(), mallory, activity)).status).toBe(202)
    await stack.drain(60_000)
    expect(await counts()).toEqual({ favourites: 0, reblogs: 0 })

    for (const activity of [interaction('Like'), interaction('Announce')])
      expect((await peer.post(inbox(), mallory, activity)).status).toBe(202)
    await stack.drain(60_000)
    expect(await counts()).toEqual({ favourites: 1, reblogs: 1 })
    const notifications = (
      await alice.get('/api/v1/notifications?types[]=favourite&types[]=reblog').expect(200)
    ).body as { type: string; account: { acct: string } }[]
    expect(notifications.map((x) => x.type).sort()).toEqual(['favourite', 'reblog'])
  })
})
