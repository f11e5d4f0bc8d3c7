// Filters (v1, the layer megalodon speaks) and search, with megalodon 10 unchanged.
import generator from 'megalodon'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
beforeAll(async () => {
  stack = await startStack()
  alice = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' })))
  bob = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'bob' })))
})
afterAll(() => stack.stop())

function client(token: string) {
  return generator('mastodon', stack.url, token, 'roost-e2e')
}

describe('megalodon: discovery', () => {
  it('saves and reads home and notifications markers', async () => {
    const status = (await bob.postStatus('read up to here', {})).data as { id: string }
    const saved = await alice.saveMarkers({ home: { last_read_id: status.id } })
    expect(saved.data).toMatchObject({ home: { last_read_id: status.id, version: 0 } })
    await alice.saveMarkers({ notifications: { last_read_id: '7' } })
    const read = await alice.getMarkers(['home', 'notifications'])
    expect(read.data).toMatchObject({
      home: { last_read_id: status.id, version: 0 },
      notifications: { last_read_id: '7', version: 0 },
    })
  })

  it('creates, lists, updates and deletes v1 filters; an irreversible one hides statuses', async () => {
    const created = await alice.createFilter('crypto', ['public'], { irreversible: false, whole_word: true })
    expect(created.status).toBe(200)
    expect(created.data).toMatchObject({ phrase: 'crypto', context: ['public'], irreversible: false })
    const posted = (await bob.postStatus('crypto is back', {})).data as { id: string }
    // A warning filter leaves the status in place (megalodon's Status drops `filtered`, the app's concern).
    expect((await alice.getPublicTimeline({ limit: 1 })).data[0]!.id).toBe(posted.id)
    await alice.updateFilter(created.data.id, 'crypto', ['public'], { irreversible: true })
    expect((await alice.getPublicTimeline({ limit: 5 })).data.map((s) => s.id)).not.toContain(posted.id)
    expect((await alice.getFilters()).data.map((f) => f.phrase)).toEqual(['crypto'])
    await alice.deleteFilter(created.data.id)
    expect((await alice.getFilters()).data).toEqual([])
  })

  it('searches statuses by full text and hashtags by prefix', async () => {
    const status = (await alice.postStatus('a walk by the #seaside', {})).data as { id: string }
    const found = await alice.search('walk', { type: 'statuses' })
    expect(found.data.statuses.map((s) => s.id)).toEqual([status.id])
    const tags = await alice.search('seas', { type: 'hashtags' })
    expect(tags.data.hashtags.map((t) => t.name)).toEqual(['seaside'])
  })
})
