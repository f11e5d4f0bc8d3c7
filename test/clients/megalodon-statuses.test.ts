// The status screens of a Mastodon app, driven by megalodon 10 unchanged (JSON bodies, absolute Link URLs):
// threads, boosted/favourited by, bookmarks, editing with history, polls, scheduled statuses, direct-message
// conversations.
import generator from 'megalodon'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually } from '../accounts/social/helpers'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
let aliceToken: string
beforeAll(async () => {
  // scheduled_at need be only 5 s ahead here (Mastodon: 5 minutes), so a publication is seen within the test.
  stack = await startStack({ env: { SCHEDULED_STATUS_MIN_OFFSET_SECONDS: '5' } })
  aliceToken = await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' }))
  alice = client(aliceToken)
  bob = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'bob' })))
})
afterAll(() => stack.stop())

function client(token: string) {
  return generator('mastodon', stack.url, token, 'roost-e2e')
}

/** The HTTP status of a failed megalodon call (it rejects with axios's error). */
const statusOf = (error: unknown) => (error as { response?: { status: number } }).response?.status

describe('megalodon: status screens', () => {
  it('reads a thread and who boosted and favourited it', async () => {
    const root = (await alice.postStatus('Thread start', {})).data as { id: string }
    const reply = (await bob.postStatus('@alice reply', { in_reply_to_id: root.id })).data as { id: string }
    await bob.reblogStatus(root.id)
    await bob.favouriteStatus(root.id)

    const context = (await alice.getStatusContext(reply.id)).data
    expect(context.ancestors.map((s) => s.id)).toEqual([root.id])
    const whole = (await alice.getStatusContext(root.id)).data
    expect(whole.descendants.map((s) => s.id)).toEqual([reply.id])
    expect((await alice.getStatusRebloggedBy(root.id)).data.map((a) => a.username)).toEqual(['bob'])
    expect((await alice.getStatusFavouritedBy(root.id)).data.map((a) => a.username)).toEqual(['bob'])
  })

  it('bookmarks, reads bookmarks and favourites, and mutes a conversation', async () => {
    const status = (await alice.postStatus('Bookmark me', {})).data as { id: string }
    expect((await bob.bookmarkStatus(status.id)).data.bookmarked).toBe(true)
    expect((await bob.getBookmarks({ limit: 10 })).data.map((s) => s.id)).toEqual([status.id])
    await bob.favouriteStatus(status.id)
    expect((await bob.getFavourites({ limit: 1 })).data.map((s) => s.id)).toEqual([status.id])
    expect((await bob.unbookmarkStatus(status.id)).data.bookmarked).toBe(false)
    expect((await alice.muteStatus(status.id)).data.muted).toBe(true)
    expect((await alice.unmuteStatus(status.id)).data.muted).toBe(false)
  })

  it('edits a status (JSON body) and reads its source and history', async () => {
    const status = (await alice.postStatus('Draft one', { spoiler_text: 'cw' })).data as { id: string }
    const edited = (await alice.editStatus(status.id, { status: 'Draft two', spoiler_text: 'cw' })).data
    expect(edited).toMatchObject({ id: status.id, content: '<p>Draft two</p>', spoiler_text: 'cw' })
    expect(edited.edited_at).toEqual(expect.any(String))
    expect((await alice.getStatusSource(status.id)).data).toEqual({
      id: status.id,
      text: 'Draft two',
      spoiler_text: 'cw',
    })
    // megalodon 10 has no call for the history; an app using it fetches the documented URL itself.
    const history = await fetch(`${stack.url}/api/v1/statuses/${status.id}/history`, {
      headers: { Authorization: `Bearer ${aliceToken}` },
    })
    expect(((await history.json()) as { content: string }[]).map((v) => v.content)).toEqual([
      '<p>Draft one</p>',
      '<p>Draft two</p>',
    ])
    expect(statusOf(await bob.editStatus(status.id, { status: 'mine now' }).catch((e: unknown) => e))).toBe(
      404,
    )
  })

  it('posts a multiple-choice poll and votes in it', async () => {
    const status = (
      await alice.postStatus('Pick any', {
        poll: { options: ['a', 'b', 'c'], expires_in: 300, multiple: true },
      })
    ).data as { poll: { id: string } }
    const poll = (await bob.votePoll(status.poll.id, [0, 2])).data
    expect(poll).toMatchObject({ votes_count: 2, voted: true, multiple: true })
    expect(poll.options.map((o) => o.votes_count)).toEqual([1, 0, 1])
    expect((await alice.getPoll(status.poll.id)).data.votes_count).toBe(2)
    // As in Mastodon, a multiple-choice poll takes another option later, never the same one twice.
    expect((await bob.votePoll(status.poll.id, [1])).data).toMatchObject({ own_votes: [0, 2, 1] })
    expect(statusOf(await bob.votePoll(status.poll.id, [1]).catch((e: unknown) => e))).toBe(422)
  })

  it('schedules a status, lists, moves and cancels, and sees one published', async () => {
    const at = (s: number) => new Date(Date.now() + s * 1000).toISOString()
    const scheduled = (await alice.postStatus('Scheduled hello', { scheduled_at: at(3600) })).data as {
      id: string
      scheduled_at: string
      params: { text: string }
    }
    expect(scheduled.params.text).toBe('Scheduled hello')
    expect((await alice.getScheduledStatuses()).data.map((s) => s.id)).toEqual([scheduled.id])
    const moved = (await alice.scheduleStatus(scheduled.id, at(12))).data
    expect((await alice.getScheduledStatus(scheduled.id)).data.scheduled_at).toBe(moved.scheduled_at)

    const other = (await alice.postStatus('Cancelled', { scheduled_at: at(3600) })).data as { id: string }
    await alice.cancelScheduledStatus(other.id)
    expect(statusOf(await alice.getScheduledStatus(other.id).catch((e: unknown) => e))).toBe(404)

    const me = (await alice.verifyAccountCredentials()).data
    const published = await eventually(async () => {
      const statuses = (await alice.getAccountStatuses(me.id)).data
      return statuses.find((s) => s.content === '<p>Scheduled hello</p>')
    }, 60_000)
    expect(Date.parse(published.created_at)).toBeGreaterThanOrEqual(Date.parse(moved.scheduled_at))
    expect((await alice.getScheduledStatuses()).data).toEqual([])
  })

  it('reads, marks read and deletes a direct-message conversation', async () => {
    // bob follows alice: Mastodon's default notification policy files private mentions from strangers as requests.
    await bob.followAccount((await alice.verifyAccountCredentials()).data.id)
    const message = (await alice.postStatus('@bob a secret', { visibility: 'direct' })).data as { id: string }
    await stack.drain()
    const [conversation] = (await bob.getConversationTimeline()).data
    expect(conversation).toMatchObject({ unread: true, last_status: { id: message.id } })
    expect(conversation!.accounts.map((a) => a.username)).toEqual(['alice'])
    expect((await bob.readConversation(conversation!.id)).data.unread).toBe(false)
    await bob.deleteConversation(conversation!.id)
    expect((await bob.getConversationTimeline()).data).toEqual([])
  })
})
