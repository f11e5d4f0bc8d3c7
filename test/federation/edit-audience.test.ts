import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'

/**
 * The Update of an edited post reaches the remote accounts its earlier versions mentioned, not only those it
 * mentions now (docs/federation.md, "Posts across servers"), as Mastodon keeps a removed mention in the status's
 * reach: their copy follows the edit.
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
let stack: Stack
let first: MiniPeer // mallory's server
let second: MiniPeer // trudy's server
let alice: TestUser
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  first = await startMiniPeer()
  second = await startMiniPeer()
  first.actor('mallory')
  second.actor('trudy')
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await first?.stop()
  await second?.stop()
})

/** The activities of `type` about `noteUri` that `peer`'s inboxes received. */
const receivedAt = (peer: MiniPeer, type: string, noteUri: string) =>
  peer.received.filter(
    (r) => r.activity.type === type && (r.activity.object as { id?: string })?.id === noteUri,
  )

it('an edit that drops a mention still sends the Update to the account mentioned before', async () => {
  const posted = (
    await alice
      .post('/api/v1/statuses', { status: `hi @mallory@${first.domain}`, visibility: 'public' })
      .expect(200)
  ).body
  expect(posted.mentions).toHaveLength(1)
  const noteUri = `${stack.url}/users/alice/statuses/${posted.id}`
  await eventually(async () => receivedAt(first, 'Create', noteUri).length > 0 || undefined)

  const edited = await stack
    .api()
    .put(`/api/v1/statuses/${posted.id}`)
    .set('Authorization', `Bearer ${alice.token}`)
    .send({ status: `now only @trudy@${second.domain}` })
    .expect(200)
  expect(edited.body.mentions.map((m: { acct: string }) => m.acct)).toEqual([`trudy@${second.domain}`])
  const [toMallory, toTrudy] = await eventually(async () => {
    const got = [receivedAt(first, 'Update', noteUri), receivedAt(second, 'Update', noteUri)]
    return got.every((g) => g.length > 0) ? got : undefined
  })
  for (const update of [toMallory![0]!, toTrudy![0]!])
    expect((update.activity.object as { content: string }).content).toContain('now only')
  await stack.drain(120_000)
  expect(receivedAt(first, 'Update', noteUri)).toHaveLength(1)
})
