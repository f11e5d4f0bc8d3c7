import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * A local poll's counts reach other servers a few minutes after a vote, once for all the votes cast meanwhile
 * (docs/federation.md, "Polls"), as Mastodon's DistributePollUpdateWorker: not one Update per vote.
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
const DELAY_MS = 3000

let stack: Stack
let peer: MiniPeer
let fan: PeerActor // a follower of bob's on the peer
let bob: TestUser
beforeAll(async () => {
  stack = await startStack({
    env: {
      FEDERATION_ALLOW_HTTP: 'true',
      FEDERATION_RETRY_BASE_MS: '100',
      FEDERATION_POLL_UPDATE_DELAY_MS: String(DELAY_MS),
    },
  })
  peer = await startMiniPeer()
  fan = peer.actor('fan')
  bob = await signUp(stack, { username: 'bob' })
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${fan.uri}#follows/1`,
    type: 'Follow',
    actor: fan.uri,
    object: `${stack.url}/users/bob`,
  }
  expect((await peer.post(`${stack.url}/inbox`, fan, follow)).status).toBe(202)
  await eventually(async () => peer.received.find((r) => r.activity.type === 'Accept'))
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const updatesOf = (noteId: string) =>
  peer.received
    .map(
      (r) =>
        r.activity as { type: string; object: { id: string; oneOf: { replies: { totalItems: number } }[] } },
    )
    .filter((a) => a.type === 'Update' && a.object.id === noteId)

it('three quick votes make one Update with all three counted; a later vote makes the next one', async () => {
  const posted = await bob
    .post('/api/v1/statuses', {
      status: 'tea or coffee?',
      poll: { options: ['tea', 'coffee'], expires_in: 3600 },
    })
    .expect(200)
  const noteId = `${stack.url}/users/bob/statuses/${posted.body.id}`
  await eventually(async () => peer.received.find((r) => r.activity.type === 'Create'))

  const voters = await Promise.all(['v1', 'v2', 'v3'].map((username) => signUp(stack, { username })))
  for (const [i, voter] of voters.entries())
    await voter.post(`/api/v1/polls/${posted.body.poll.id}/votes`, { choices: [i % 2] }).expect(200)
  const [first] = await eventually(async () => updatesOf(noteId)[0] && updatesOf(noteId))
  expect(first!.object.oneOf.map((o) => o.replies.totalItems)).toEqual([2, 1])
  // Nothing more for those votes, however long one waits.
  await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 500))
  await stack.drain()
  expect(updatesOf(noteId)).toHaveLength(1)

  const late = await signUp(stack, { username: 'v4' })
  await late.post(`/api/v1/polls/${posted.body.poll.id}/votes`, { choices: [1] }).expect(200)
  const [, second] = await eventually(async () => updatesOf(noteId)[1] && updatesOf(noteId))
  expect(second!.object.oneOf.map((o) => o.replies.totalItems)).toEqual([2, 2])
})
