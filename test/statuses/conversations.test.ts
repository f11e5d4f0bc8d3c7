import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

interface Conversation {
  id: string
  unread: boolean
  accounts: { id: string; username: string }[]
  last_status: { id: string; content: string } | null
}
const conversationsOf = async (user: TestUser, query = '') => {
  const res = await user.get(`/api/v1/conversations${query}`).expect(200)
  return res.body as Conversation[]
}
const dm = async (user: TestUser, text: string, extra: object = {}) => {
  const id = await post(user, { status: text, visibility: 'direct', ...extra })
  await stack.drain()
  return id
}
/**
 * Users who accept private mentions from anyone: Mastodon's default notification policy files those from accounts
 * one does not follow as requests, out of the conversations until accepted (test/notifications/policy.test.ts).
 */
const users = async (...names: string[]) =>
  Promise.all(
    names.map(async (username) => {
      const user = await signUp(stack, { username })
      await stack
        .api()
        .patch('/api/v2/notifications/policy')
        .set('Authorization', `Bearer ${user.token}`)
        .send({ for_private_mentions: 'accept' })
        .expect(200)
      return user
    }),
  )

describe('GET /api/v1/conversations', () => {
  it('files a direct status in each participant’s conversation, unread for those who did not write it', async () => {
    const [alice, bob, carol, dave] = await users('alice', 'bob', 'carol', 'dave')
    const first = await dm(alice!, '@bob @carol hello')

    const [mine, ...noMore] = await conversationsOf(alice!)
    expect(noMore).toEqual([])
    expect(mine).toMatchObject({ unread: false, last_status: { id: first } })
    expect(mine!.accounts.map((a) => a.id).sort()).toEqual([bob!.id, carol!.id].sort())
    const [bobs] = await conversationsOf(bob!)
    expect(bobs).toMatchObject({ unread: true, last_status: { id: first } })
    expect(bobs!.accounts.map((a) => a.id).sort()).toEqual([alice!.id, carol!.id].sort())
    expect(await conversationsOf(carol!)).toHaveLength(1)
    expect(await conversationsOf(dave!)).toEqual([])

    // A reply with the same participants joins the same conversations: read for its writer, unread for the others.
    const reply = await dm(bob!, '@alice @carol hi back', { in_reply_to_id: first })
    const [bobsNow] = await conversationsOf(bob!)
    expect(bobsNow).toMatchObject({ id: bobs!.id, unread: false, last_status: { id: reply } })
    const [minesNow] = await conversationsOf(alice!)
    expect(minesNow).toMatchObject({ id: mine!.id, unread: true, last_status: { id: reply } })

    // The same thread with fewer participants is another conversation.
    const aside = await dm(alice!, '@bob just us', { in_reply_to_id: reply })
    const alices = await conversationsOf(alice!)
    expect(alices.map((c) => c.last_status!.id)).toEqual([aside, reply])
    expect(alices[0]!.accounts.map((a) => a.id)).toEqual([bob!.id])
    expect((await conversationsOf(carol!)).map((c) => c.last_status!.id)).toEqual([reply])

    // Public, unlisted and private posts make no conversations, nor does an edit.
    await post(alice!, { status: '@dave public', visibility: 'public' })
    await post(alice!, { status: '@dave private', visibility: 'private' })
    await stack.drain()
    expect(await conversationsOf(dave!)).toEqual([])
  })

  it('gives a note to oneself a conversation with oneself', async () => {
    const [erin] = await users('erin')
    const note = await dm(erin!, 'remember the milk')
    const [self] = await conversationsOf(erin!)
    expect(self).toMatchObject({ unread: false, last_status: { id: note } })
    expect(self!.accounts.map((a) => a.id)).toEqual([erin!.id])
  })

  it('pages by last status with Link headers', async () => {
    const [frank, ...others] = await users('frank', 'g1', 'g2', 'g3')
    const ids: string[] = []
    for (const other of others) ids.push(await dm(frank!, `@${other.username} hi`))
    const page = await frank!.get('/api/v1/conversations?limit=2').expect(200)
    expect(page.body.map((c: Conversation) => c.last_status!.id)).toEqual([ids[2], ids[1]])
    const link = links(page.headers.link)
    expect(link.next).toBe(`${stack.url}/api/v1/conversations?limit=2&max_id=${ids[1]}`)
    expect(link.prev).toBe(`${stack.url}/api/v1/conversations?limit=2&min_id=${ids[2]}`)
    const next = await frank!.get(onStack(stack, link.next!)).expect(200)
    expect(next.body.map((c: Conversation) => c.last_status!.id)).toEqual([ids[0]])
    expect(links(next.headers.link).next).toBeUndefined()
    const newer = await frank!.get(`/api/v1/conversations?min_id=${ids[0]}`).expect(200)
    expect(newer.body.map((c: Conversation) => c.last_status!.id)).toEqual([ids[2], ids[1]])
  })

  it('leaves out what a block or a thread mute drops, and what a deletion or a block takes away', async () => {
    const [hana, ivan, jo] = await users('hana', 'ivan', 'jo')
    await ivan!.post(`/api/v1/accounts/${hana!.id}/block`).expect(200)
    await stack.drain()
    await dm(hana!, '@ivan blocked')
    expect(await conversationsOf(ivan!)).toEqual([])
    expect(await conversationsOf(hana!)).toHaveLength(1)

    const root = await dm(jo!, '@hana thread')
    await hana!.post(`/api/v1/statuses/${root}/mute`).expect(200)
    const hanas = (await conversationsOf(hana!)).length
    const muted = await dm(jo!, '@hana muted', { in_reply_to_id: root })
    const after = await conversationsOf(hana!)
    expect(after).toHaveLength(hanas)
    expect(after.map((c) => c.last_status!.id)).toContain(root)
    expect(after.map((c) => c.last_status!.id)).not.toContain(muted)

    // Deleting the only status of a conversation deletes it; deleting the last one moves it back.
    const lone = await dm(jo!, '@ivan lone')
    expect((await conversationsOf(ivan!)).map((c) => c.last_status!.id)).toEqual([lone])
    await jo!.delete(`/api/v1/statuses/${lone}`).expect(200)
    await stack.drain()
    expect(await conversationsOf(ivan!)).toEqual([])
    const one = await dm(jo!, '@ivan one')
    const two = await dm(jo!, '@ivan two', { in_reply_to_id: one })
    expect((await conversationsOf(ivan!))[0]!.last_status!.id).toBe(two)
    await jo!.delete(`/api/v1/statuses/${two}`).expect(200)
    await stack.drain()
    expect((await conversationsOf(ivan!))[0]!.last_status!.id).toBe(one)

    // Blocking deletes one's conversations with the blocked account.
    await ivan!.post(`/api/v1/accounts/${jo!.id}/block`).expect(200)
    await stack.drain()
    expect(await conversationsOf(ivan!)).toEqual([])
  })
})

describe('POST /api/v1/conversations/:id/read and DELETE /api/v1/conversations/:id', () => {
  it('marks read, deletes (a new message starts it again), and answers 404 for others’ conversations', async () => {
    const [kim, lee] = await users('kim', 'lee')
    const first = await dm(kim!, '@lee hi')
    const [unread] = await conversationsOf(lee!)
    expect(unread!.unread).toBe(true)
    const read = await lee!.post(`/api/v1/conversations/${unread!.id}/read`).expect(200)
    expect(read.body).toEqual({ ...unread, unread: false })
    expect((await conversationsOf(lee!))[0]!.unread).toBe(false)

    for (const path of [`/api/v1/conversations/${unread!.id}/read`, '/api/v1/conversations/nope/read'])
      expect((await kim!.post(path).expect(404)).body).toEqual({ error: 'Record not found' })
    await kim!.delete(`/api/v1/conversations/${unread!.id}`).expect(404)

    expect((await lee!.delete(`/api/v1/conversations/${unread!.id}`).expect(200)).body).toEqual({})
    expect(await conversationsOf(lee!)).toEqual([])
    // The statuses stay; a new message in the thread brings the conversation back, with only what came since.
    await lee!.get(`/api/v1/statuses/${first}`).expect(200)
    const again = await dm(kim!, '@lee still there?', { in_reply_to_id: first })
    const [back] = await conversationsOf(lee!)
    expect(back).toMatchObject({ unread: true, last_status: { id: again } })
    expect(back!.id).not.toBe(unread!.id)

    // A replayed activity (at least once) files nothing twice and does not mark it unread again.
    await lee!.post(`/api/v1/conversations/${back!.id}/read`).expect(200)
    await stack.accountsWorker!.activities.add(
      'status.created',
      { event: 'status.created', statusId: again, accountId: kim!.id },
      { jobId: `replay-${again}` },
    )
    await stack.drain()
    expect(await conversationsOf(lee!)).toEqual([{ ...back, unread: false }])

    const readOnly = await signUp(stack, { scope: 'read' })
    await readOnly.get('/api/v1/conversations').expect(200)
    await readOnly.post(`/api/v1/conversations/${back!.id}/read`).expect(403)
    await stack.api().get('/api/v1/conversations').expect(401)
  })
})
