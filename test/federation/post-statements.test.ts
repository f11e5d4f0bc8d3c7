import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'

/**
 * What an outgoing post costs the accounts worker in Postgres statements: a public post of alice's mentioning a
 * remote account, with one remote follower, from the outbox to its Create in the peer's inbox (every consumer of
 * `status.created` and the delivery). The Note is built from the rows the worker has read for the activity
 * (docs/federation.md, "Posts across servers"), not from the client API's Status entity read again.
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
let stack: Stack
let peer: MiniPeer
let alice: TestUser
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true' } })
  peer = await startMiniPeer()
  const fan = peer.actor('fan')
  peer.actor('bob')
  alice = await signUp(stack, { username: 'alice' })
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${fan.uri}#follows/1`,
    type: 'Follow',
    actor: fan.uri,
    object: `${stack.url}/users/alice`,
  }
  expect((await peer.post(`${stack.url}/inbox`, fan, follow)).status).toBe(202)
  await eventually(async () => peer.received.find((r) => r.activity.type === 'Accept'))
  // bob is known before the post (a mention resolved at post time costs the accounts service, not the worker).
  await alice.get(`/api/v2/search?q=bob@${peer.domain}&resolve=true&type=accounts`).expect(200)
  await stack.drain()
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

/**
 * Statements the accounts worker runs while it handles such a post and delivers its Create: 22, of which 4 are the
 * Note's own (media, poll, self-replies, and since quotes its quote, docs/statuses.md "Quotes") and 1 the accepted
 * relays a public post also goes to (docs/federation.md, "Relays"). The signatures read nothing here: the author's
 * key pair and the scheme the peer's host accepts are in the worker's per-process caches since it delivered the
 * Accept of the follow (docs/performance.md, "Write path"; 26 when both signatures read the key and each
 * delivery the scheme). 27 when the Note was rendered through the client API's Status entity and its mentions,
 * media and accounts read a second time (8 of the Note's own). 23 when the notifications' transaction locked the
 * status in a statement of its own, not in the recipients' facts (docs/performance.md, "Write path").
 */
const BUDGET = 22

it(`a post with one remote mention and one remote follower costs the worker at most ${BUDGET} statements`, async () => {
  const statements: string[] = []
  const db = stack.accountsWorker!.db
  const count = (q: { sql: string }) => statements.push(q.sql)
  db.on('query', count)
  try {
    const posted = (
      await alice
        .post('/api/v1/statuses', { status: `hello @bob@${peer.domain} #birds`, visibility: 'public' })
        .expect(200)
    ).body
    expect(posted.mentions).toHaveLength(1)
    const noteId = `${stack.url}/users/alice/statuses/${posted.id}`
    const create = await eventually(async () =>
      peer.received.find(
        (r) => r.activity.type === 'Create' && (r.activity.object as { id?: string }).id === noteId,
      ),
    )
    // The activity handled by every consumer, and the delivery done (drain() would add the relay's own polls).
    const worker = stack.accountsWorker!
    await worker.idle()
    await eventually(async () => {
      const counts = await worker.deliveries.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      return Object.values(counts).every((n) => n === 0) || undefined
    })
    const note = create.activity.object as Record<string, unknown>
    expect(note).toMatchObject({
      content: posted.content,
      tag: [
        { type: 'Mention', name: `@bob@${peer.domain}` },
        { type: 'Hashtag', name: '#birds' },
      ],
    })
  } finally {
    db.off('query', count)
  }
  // Every statement, for whoever changes the number.
  if (statements.length > BUDGET)
    throw new Error(`${statements.length} statements, over ${BUDGET}:\n${statements.join('\n')}`)
})
