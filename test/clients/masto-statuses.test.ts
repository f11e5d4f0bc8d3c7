// The status screens of a Mastodon app, driven by masto.js 7 unchanged: threads, boosted/favourited by,
// bookmarks, editing with history, polls, scheduled statuses, direct-message conversations. The library builds every
// request and parses every answer.
import { createRestAPIClient, MastoHttpError } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually } from '../accounts/social/helpers'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
let bobId: string
beforeAll(async () => {
  // scheduled_at need be only 5 s ahead here (Mastodon: 5 minutes), so a publication is seen within the test.
  stack = await startStack({ env: { SCHEDULED_STATUS_MIN_OFFSET_SECONDS: '5' } })
  alice = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' })))
  const bobUser = await stack.createUser({ username: 'bob' })
  bobId = bobUser.accountId
  bob = client(await stack.userToken(SCOPES, bobUser))
})
afterAll(() => stack.stop())

function client(accessToken: string) {
  return createRestAPIClient({ url: stack.url, accessToken, timeout: 10_000 })
}

describe('masto.js: status screens', () => {
  it('reads a thread, who boosted and favourited it, and several statuses at once', async () => {
    const root = await alice.v1.statuses.create({ status: 'What do you think?' })
    const answer = await bob.v1.statuses.create({ status: '@alice I agree', inReplyToId: root.id })
    const more = await alice.v1.statuses.create({ status: 'And also…', inReplyToId: root.id })
    await bob.v1.statuses.$select(root.id).reblog()
    await bob.v1.statuses.$select(root.id).favourite()

    const context = await alice.v1.statuses.$select(answer.id).context.fetch()
    expect(context.ancestors.map((s) => s.id)).toEqual([root.id])
    expect(context.descendants).toEqual([])
    const whole = await alice.v1.statuses.$select(root.id).context.fetch()
    expect(whole.descendants.map((s) => s.id)).toEqual([more.id, answer.id])
    expect(whole.descendants[1]!.inReplyToAccountId).toBe(root.account.id)

    const boosters = await alice.v1.statuses.$select(root.id).rebloggedBy.list()
    expect(boosters.map((a) => a.username)).toEqual(['bob'])
    const favouriters = await alice.v1.statuses.$select(root.id).favouritedBy.list()
    expect(favouriters.map((a) => a.id)).toEqual([bobId])

    const several = await bob.v1.statuses.fetch({ id: [root.id, answer.id] })
    expect(several.map((s) => s.id)).toEqual([answer.id, root.id])
  })

  it('bookmarks, lists bookmarks and favourites, and mutes a conversation', async () => {
    const status = await alice.v1.statuses.create({ status: 'Keep this' })
    const marked = await bob.v1.statuses.$select(status.id).bookmark()
    expect(marked.bookmarked).toBe(true)
    const bookmarks = await bob.v1.bookmarks.list()
    expect(bookmarks.map((s) => s.id)).toEqual([status.id])
    await bob.v1.statuses.$select(status.id).favourite()
    const favourites = await bob.v1.favourites.list({ limit: 5 })
    expect(favourites[0]!.id).toBe(status.id)
    expect((await bob.v1.statuses.$select(status.id).unbookmark()).bookmarked).toBe(false)
    expect(await bob.v1.bookmarks.list()).toEqual([])

    expect((await alice.v1.statuses.$select(status.id).mute()).muted).toBe(true)
    expect((await alice.v1.statuses.$select(status.id).unmute()).muted).toBe(false)
  })

  it('edits a status and reads its history and source', async () => {
    const status = await alice.v1.statuses.create({ status: 'Frist post', language: 'en' })
    const edited = await alice.v1.statuses
      .$select(status.id)
      .update({ status: 'First post', spoilerText: 'typo' })
    expect(edited).toMatchObject({
      id: status.id,
      content: '<p>First post</p>',
      spoilerText: 'typo',
      language: 'en',
    })
    expect(edited.editedAt).toEqual(expect.any(String))

    const history = await bob.v1.statuses.$select(status.id).history.list()
    expect(history.map((v) => v.content)).toEqual(['<p>Frist post</p>', '<p>First post</p>'])
    expect(history[1]).toMatchObject({ spoilerText: 'typo', sensitive: true, account: { username: 'alice' } })
    const source = await alice.v1.statuses.$select(status.id).source.fetch()
    expect(source).toEqual({ id: status.id, text: 'First post', spoilerText: 'typo' })

    const error = await bob.v1.statuses
      .$select(status.id)
      .update({ status: 'not mine' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MastoHttpError)
    expect(error).toMatchObject({ statusCode: 404 })
  })

  it('posts a poll, votes in it, and reads the result', async () => {
    const status = await alice.v1.statuses.create({
      status: 'Tabs or spaces?',
      poll: { options: ['Tabs', 'Spaces'], expiresIn: 600, multiple: false },
    })
    expect(status.poll).toMatchObject({ expired: false, multiple: false, votesCount: 0 })
    const poll = await bob.v1.polls.$select(status.poll!.id).votes.create({ choices: [1] })
    expect(poll).toMatchObject({ votesCount: 1, votersCount: 1, voted: true, ownVotes: [1] })
    expect(poll.options).toEqual([
      { title: 'Tabs', votesCount: 0 },
      { title: 'Spaces', votesCount: 1 },
    ])
    const fetched = await alice.v1.polls.$select(status.poll!.id).fetch()
    expect(fetched).toMatchObject({ votesCount: 1, voted: true })

    const again = await bob.v1.polls
      .$select(status.poll!.id)
      .votes.create({ choices: [0] })
      .catch((e: unknown) => e)
    expect(again).toMatchObject({
      statusCode: 422,
      message: 'Validation failed: You have already voted on this poll',
    })
  })

  it('schedules a status, lists, moves and reads it, and sees it published', async () => {
    const at = (s: number) => new Date(Date.now() + s * 1000).toISOString()
    const scheduled = await alice.v1.statuses.create({ status: 'Good morning', scheduledAt: at(3600) })
    expect(scheduled).toMatchObject({ params: { text: 'Good morning' }, mediaAttachments: [] })
    const list = await alice.v1.scheduledStatuses.list()
    expect(list.map((s) => s.id)).toEqual([scheduled.id])
    const moved = await alice.v1.scheduledStatuses.$select(scheduled.id).update({ scheduledAt: at(12) })
    expect(Date.parse(moved.scheduledAt)).toBeLessThan(Date.parse(scheduled.scheduledAt))
    expect((await alice.v1.scheduledStatuses.$select(scheduled.id).fetch()).scheduledAt).toBe(
      moved.scheduledAt,
    )

    const other = await alice.v1.statuses.create({ status: 'Never mind', scheduledAt: at(3600) })
    await alice.v1.scheduledStatuses.$select(other.id).remove()
    const error = await alice.v1.scheduledStatuses
      .$select(other.id)
      .fetch()
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 404 })

    const me = await alice.v1.accounts.verifyCredentials()
    const published = await eventually(async () => {
      const statuses = await alice.v1.accounts.$select(me.id).statuses.list()
      return statuses.find((s) => s.content === '<p>Good morning</p>')
    }, 60_000)
    expect(Date.parse(published.createdAt)).toBeGreaterThanOrEqual(Date.parse(moved.scheduledAt))
    expect(await alice.v1.scheduledStatuses.list()).toEqual([])
  })

  it('reads, marks read and removes a direct-message conversation', async () => {
    // bob follows alice: Mastodon's default notification policy files private mentions from strangers as requests.
    await bob.v1.accounts.$select((await alice.v1.accounts.verifyCredentials()).id).follow()
    const message = await alice.v1.statuses.create({ status: '@bob psst', visibility: 'direct' })
    await stack.drain()
    const [conversation] = await bob.v1.conversations.list()
    expect(conversation).toMatchObject({ unread: true, lastStatus: { id: message.id } })
    expect(conversation!.accounts.map((a) => a.username)).toEqual(['alice'])
    const read = await bob.v1.conversations.$select(conversation!.id).read()
    expect(read.unread).toBe(false)
    await bob.v1.conversations.$select(conversation!.id).remove()
    expect(await bob.v1.conversations.list()).toEqual([])
    const [own] = await alice.v1.conversations.list()
    expect(own).toMatchObject({ unread: false, lastStatus: { id: message.id } })
  })
})
