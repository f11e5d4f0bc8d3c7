import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

/**
 * `@user@<this server's domain>` is a mention of the local account (docs/federation.md, "Mentions of remote
 * accounts"), written `@user` as Mastodon's ProcessMentionsService writes it, in a new status and in an edit;
 * an address of ours naming nobody stays text.
 */
let stack: Stack
let alice: TestUser
let bob: TestUser
let domain: string
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  domain = new URL(stack.url).host
})
afterAll(async () => {
  await stack?.stop()
})

const mentionsOf = (status: { mentions: { id: string; acct: string }[] }) =>
  status.mentions.map((m) => [m.id, m.acct])
const bobsMentions = async () =>
  (await bob.get('/api/v1/notifications?types[]=mention').expect(200)).body.map(
    (n: { status: { id: string } }) => n.status.id,
  )

it('mentions, notifies and links the local account, and keeps `@user` as the text', async () => {
  const status = (
    await alice
      .post('/api/v1/statuses', { status: `hi @Bob@${domain.toUpperCase()} and @nobody@${domain}` })
      .expect(200)
  ).body
  expect(mentionsOf(status)).toEqual([[bob.id, 'bob']])
  expect(status.content).toContain(`<a href="${stack.url}/@bob" class="u-url mention">@<span>bob</span></a>`)
  expect(status.content).toContain(`@nobody@${domain}`)
  const source = (await alice.get(`/api/v1/statuses/${status.id}/source`).expect(200)).body
  expect(source.text).toBe(`hi @bob and @nobody@${domain}`)
  await stack.drain(60_000)
  expect(await bobsMentions()).toContain(status.id)
})

it('does the same in an edit', async () => {
  const status = (await alice.post('/api/v1/statuses', { status: 'nobody yet' }).expect(200)).body
  const edited = (
    await stack
      .api()
      .put(`/api/v1/statuses/${status.id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ status: `now @bob@${domain}` })
      .expect(200)
  ).body
  expect(mentionsOf(edited)).toEqual([[bob.id, 'bob']])
  expect((await alice.get(`/api/v1/statuses/${status.id}/source`).expect(200)).body.text).toBe('now @bob')
})
