import { createLogger } from '@roost/service'
import { createFederation } from '../../apps/accounts/src/federation/transport/client'
import type { Federation } from '../../apps/accounts/src/federation/transport/client'
import { refreshStaleAccounts } from '../../apps/accounts/src/federation/refresh'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { resolveActor, startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'

/**
 * Periodic profile refreshes (docs/federation.md, "Remote accounts"): remote accounts a local one follows, fetched
 * over a day ago, are fetched again a few at a time, oldest first; one that cannot be fetched keeps its profile and
 * is not tried again within the hour; accounts no local one is related to are left alone.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let federation: Federation
beforeAll(async () => {
  // No accounts worker: its own rounds would refresh the profiles under the test's feet; the test runs the rounds.
  stack = await startStack({ accountsWorker: false, env: { FEDERATION_ALLOW_HTTP: 'true' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  federation = createFederation({
    db: stack.accounts.ctx.db,
    config: { PUBLIC_URL: stack.url, FEDERATION: true, FEDERATION_ALLOW_HTTP: true },
    logger: createLogger('test', 'silent'),
  })
})
afterAll(async () => {
  federation?.close()
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const fed = () => federation
const resolve = async (username: string) => (await resolveActor(alice, peer, username)).id
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600_000)

it('fetches stale followed profiles again, oldest first and a batch at a time', async () => {
  const names = ['ann', 'ben', 'cat', 'dan']
  const ids: Record<string, string> = {}
  for (const name of names) {
    peer.actor(name, { name: `${name} before` })
    ids[name] = await resolve(name)
  }
  // alice follows ann, ben and cat (requests: the peer has not answered); dan is only known.
  for (const name of ['ann', 'ben', 'cat'])
    await alice.post(`/api/v1/accounts/${ids[name]}/follow`).expect(200)
  // Fetched 2, 3, 4 and 5 days ago; nothing fresh is picked.
  for (const [i, name] of names.entries())
    await db()('accounts')
      .where({ id: ids[name] })
      .update({ fetched_at: daysAgo(2 + i) })
  for (const name of names) peer.actors.get(name)!.name = `${name} after`

  const first = await refreshStaleAccounts(fed(), 2)
  expect(first.sort()).toEqual([peer.actors.get('ben')!.uri, peer.actors.get('cat')!.uri])
  const second = await refreshStaleAccounts(fed(), 2)
  expect(second).toEqual([peer.actors.get('ann')!.uri])
  expect(await refreshStaleAccounts(fed(), 2)).toEqual([])

  const shown = async (name: string) =>
    (await alice.get(`/api/v1/accounts/${ids[name]}`).expect(200)).body.display_name as string
  expect(await shown('ann')).toBe('ann after')
  expect(await shown('cat')).toBe('cat after')
  expect(await shown('dan')).toBe('dan before')
  const fresh = await db()('accounts').where({ id: ids.ann }).first('fetched_at')
  expect(Date.now() - new Date(fresh.fetched_at).getTime()).toBeLessThan(3600_000)
})

it('keeps a profile that cannot be fetched and tries it again only an hour later', async () => {
  peer.actor('eve', { name: 'eve before' })
  const id = await resolve('eve')
  await alice.post(`/api/v1/accounts/${id}/follow`).expect(200)
  await db()('accounts')
    .where({ id })
    .update({ fetched_at: daysAgo(2) })
  peer.actors.delete('eve')

  expect(await refreshStaleAccounts(fed(), 10)).toEqual([])
  const row = await db()('accounts').where({ id }).first()
  expect(row.display_name).toBe('eve before')
  expect(row.refresh_attempted_at).not.toBeNull()
  // Within the hour it is not claimed again; an hour later it is.
  peer.actor('eve', { name: 'eve after' })
  expect(await refreshStaleAccounts(fed(), 10)).toEqual([])
  await db()('accounts')
    .where({ id })
    .update({ refresh_attempted_at: new Date(Date.now() - 2 * 3600_000) })
  expect(await refreshStaleAccounts(fed(), 10)).toEqual([row.uri])
  expect((await db()('accounts').where({ id }).first()).display_name).toBe('eve after')
})
