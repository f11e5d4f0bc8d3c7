// The timelines of a Mastodon app, driven by megalodon 10 unchanged: home and lists.
import generator from 'megalodon'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
let bobId: string
beforeAll(async () => {
  stack = await startStack()
  alice = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' })))
  const bobUser = await stack.createUser({ username: 'bob' })
  bobId = bobUser.accountId
  bob = client(await stack.userToken(SCOPES, bobUser))
  // As an app does on start: the first read asks for the feeds to be built.
  await alice.getHomeTimeline()
  await stack.drain()
})
afterAll(() => stack.stop())

function client(token: string) {
  return generator('mastodon', stack.url, token, 'roost-e2e')
}

describe('megalodon: timelines', () => {
  it('reads the home timeline with max_id and min_id', async () => {
    await alice.followAccount(bobId)
    const posted: string[] = []
    for (let i = 0; i < 5; i++)
      posted.unshift(((await bob.postStatus(`home ${i}`, {})).data as { id: string }).id)
    await stack.drain()
    const first = await alice.getHomeTimeline({ limit: 2 })
    expect(first.status).toBe(200)
    expect(first.data.map((s) => s.id)).toEqual(posted.slice(0, 2))
    const older = await alice.getHomeTimeline({ limit: 2, max_id: posted[1] })
    expect(older.data.map((s) => s.id)).toEqual(posted.slice(2, 4))
    const newer = await alice.getHomeTimeline({ limit: 2, min_id: posted[3] })
    expect(newer.data.map((s) => s.id)).toEqual(posted.slice(1, 3))
  })

  it('creates a list, adds an account, reads the list timeline, renames and deletes it', async () => {
    const list = (await alice.createList('Neighbours')).data
    expect(list).toMatchObject({ title: 'Neighbours', replies_policy: 'list' })
    await alice.addAccountsToList(list.id, [bobId])
    expect((await alice.getAccountsInList(list.id)).data.map((a) => a.id)).toEqual([bobId])
    expect((await alice.getAccountLists(bobId)).data.map((l) => l.id)).toEqual([list.id])
    await alice.getListTimeline(list.id) // the first read builds the list's feed
    await stack.drain()
    const status = (await bob.postStatus('for the neighbours', {})).data as { id: string }
    await stack.drain()
    const timeline = await alice.getListTimeline(list.id, { limit: 5 })
    expect(timeline.status).toBe(200)
    expect(timeline.data[0]).toMatchObject({ id: status.id, content: '<p>for the neighbours</p>' })
    expect((await alice.updateList(list.id, 'Street')).data.title).toBe('Street')
    expect((await alice.getLists()).data.map((l) => l.title)).toEqual(['Street'])
    await alice.deleteAccountsFromList(list.id, [bobId])
    expect((await alice.getAccountsInList(list.id)).data).toEqual([])
    await alice.deleteList(list.id)
    expect((await alice.getLists()).data).toEqual([])
  })

  it('reads a hashtag timeline, follows the tag and lists followed tags', async () => {
    const status = (await bob.postStatus('hello #Megalodon', {})).data as { id: string }
    const tagged = await alice.getTagTimeline('megalodon', { limit: 5 })
    expect(tagged.data.map((s) => s.id)).toEqual([status.id])
    expect((await alice.followTag('megalodon')).data).toMatchObject({ name: 'Megalodon', following: true })
    expect((await alice.getFollowedTags()).data.map((t) => t.name)).toEqual(['Megalodon'])
    expect((await alice.getTag('MEGALODON')).data).toMatchObject({ name: 'Megalodon', following: true })
    expect((await alice.unfollowTag('megalodon')).data.following).toBe(false)
  })
})
