import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { createDeliver } from '../../apps/accounts/src/federation/transport/delivery-queue'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'

/**
 * Delivery concurrency per host (docs/federation.md, "Delivery"): with FEDERATION_HOST_CONCURRENCY=2, a slow peer
 * never has more than two deliveries in flight from Roost, however many the worker could run, and every one
 * arrives, each on its first attempt (a job that found the host busy waited without spending one).
 */
let stack: Stack
let peer: MiniPeer
beforeAll(async () => {
  stack = await startStack({
    env: {
      FEDERATION_ALLOW_HTTP: 'true',
      FEDERATION_RETRY_BASE_MS: '100',
      FEDERATION_HOST_CONCURRENCY: '2',
    },
  })
  peer = await startMiniPeer()
  peer.actor('dave')
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

it('never has more than 2 deliveries in flight to a slow host, and delivers all of them', async () => {
  const alice = await signUp(stack, { username: 'alice' })
  const search = await alice
    .get(`/api/v2/search?q=dave@${peer.domain}&resolve=true&type=accounts`)
    .expect(200)
  const dave = await stack.accounts.ctx.db('accounts').where({ id: search.body.accounts[0].id }).first()
  const aliceId = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body.id as string

  // Ten activities for dave queued at once, as a burst of posts would queue them; the worker runs ten jobs at once.
  peer.inboxLoad.holdMs = 600
  const worker = stack.accountsWorker!
  const deliver = createDeliver(worker.federation, worker.deliveries, 100)
  const uri = (i: number) => `${stack.url}/users/alice#tests/${i}`
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      deliver(
        { id: uri(i), type: 'Follow', actor: `${stack.url}/users/alice`, object: dave.uri },
        aliceId,
        [dave],
        `burst-${i}`,
      ),
    ),
  )
  await eventually(async () => peer.received.length === 10, 60_000)

  expect(peer.inboxLoad.maxInFlight).toBeGreaterThan(0)
  expect(peer.inboxLoad.maxInFlight).toBeLessThanOrEqual(2)
  expect(new Set(peer.received.map((r) => r.activity.id))).toEqual(
    new Set(Array.from({ length: 10 }, (_, i) => uri(i))),
  )
  // Nothing failed, so nothing was sent twice; and no job spent more than one attempt.
  expect(peer.attempts).toBe(10)
  // The peer records an activity before its answer reaches the worker: wait for the jobs to complete.
  await eventually(async () => (await worker.deliveries.getCompletedCount()) === 10, 60_000)
  const done = await worker.deliveries.getCompleted()
  expect(done.length).toBe(10)
  for (const job of done) expect(job.attemptsMade).toBe(1)
})
