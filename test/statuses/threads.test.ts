import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
})
afterAll(() => stack.stop())

const reply = (user: TestUser, to: string, text: string, extra: object = {}) =>
  post(user, { status: text, in_reply_to_id: to, ...extra })
const ids = (statuses: { id: string }[]) => statuses.map((s) => s.id)

describe('GET /api/v1/statuses/:id/context', () => {
  it('gives ancestors root first and descendants depth-first, the author’s own continuations first', async () => {
    const root = await post(alice, 'root')
    const bobReply = await reply(bob, root, 'bob answers')
    const bobDeeper = await reply(carol, bobReply, 'carol answers bob')
    const aliceContinues = await reply(alice, root, 'alice continues')
    const aliceAgain = await reply(alice, aliceContinues, 'alice again')
    const carolOnAlice = await reply(carol, aliceAgain, 'carol on alice')

    const res = await stack.api().get(`/api/v1/statuses/${aliceAgain}/context`).expect(200)
    expect(ids(res.body.ancestors)).toEqual([root, aliceContinues])
    expect(ids(res.body.descendants)).toEqual([carolOnAlice])

    const whole = await bob.get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(whole.body.ancestors).toEqual([])
    // Depth-first with siblings oldest first would be bob, carol, alice, alice, carol; the self-replies move up.
    expect(ids(whole.body.descendants)).toEqual([
      aliceContinues,
      aliceAgain,
      bobReply,
      bobDeeper,
      carolOnAlice,
    ])
    expect(whole.body.descendants[0]).toMatchObject({ in_reply_to_id: root, account: { username: 'alice' } })
  })

  it('leaves out what the viewer may not see, and authors the viewer blocks or mutes', async () => {
    const root = await post(alice, 'a thread')
    const secret = await reply(bob, root, 'followers only', { visibility: 'private' })
    const fromCarol = await reply(carol, root, 'from carol')

    const asAlice = await alice.get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(ids(asAlice.body.descendants)).toEqual([fromCarol])
    const anonymous = await stack.api().get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(ids(anonymous.body.descendants)).toEqual([fromCarol])

    await bob.post(`/api/v1/accounts/${carol.id}/block`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/mute`).expect(200)
    const asBob = await bob.get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(ids(asBob.body.descendants)).toEqual([secret])
    const muted = await alice.get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(ids(muted.body.descendants)).toEqual([])
    // Bob's block hides him from Carol, but her own reply always stays.
    const asCarol = await carol.get(`/api/v1/statuses/${secret}/context`).expect(404)
    expect(asCarol.body).toEqual({ error: 'Not Found' })
    const own = await carol.get(`/api/v1/statuses/${root}/context`).expect(200)
    expect(ids(own.body.descendants)).toEqual([fromCarol])
    await bob.post(`/api/v1/accounts/${carol.id}/unblock`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/unmute`).expect(200)
  })

  it('limits anonymous readers to the 40 nearest ancestors and 20 levels of replies; users get everything', async () => {
    const chain = [await post(bob, 'start')]
    for (let i = 1; i <= 45; i++) chain.push(await reply(bob, chain.at(-1)!, `step ${i}`))

    const last = await stack
      .api()
      .get(`/api/v1/statuses/${chain.at(-1)}/context`)
      .expect(200)
    expect(ids(last.body.ancestors)).toEqual(chain.slice(5, 45))
    const signedIn = await alice.get(`/api/v1/statuses/${chain.at(-1)}/context`).expect(200)
    expect(ids(signedIn.body.ancestors)).toEqual(chain.slice(0, 45))

    const first = await stack.api().get(`/api/v1/statuses/${chain[0]}/context`).expect(200)
    expect(ids(first.body.descendants)).toEqual(chain.slice(1, 21))
    const deep = await alice.get(`/api/v1/statuses/${chain[0]}/context`).expect(200)
    expect(ids(deep.body.descendants)).toEqual(chain.slice(1))
  })

  it('answers 404 Not Found for an unknown or invisible status', async () => {
    const direct = await post(alice, { status: 'for @bob only', visibility: 'direct' })
    for (const path of [
      `/api/v1/statuses/${direct}/context`,
      '/api/v1/statuses/999/context',
      '/api/v1/statuses/x/context',
    ]) {
      const res = await carol.get(path).expect(404)
      expect(res.body).toEqual({ error: 'Not Found' })
    }
    await bob.get(`/api/v1/statuses/${direct}/context`).expect(200)
  })
})

describe('GET /api/v1/statuses/:id/reblogged_by and favourited_by', () => {
  let status: string
  let dave: TestUser
  beforeAll(async () => {
    dave = await signUp(stack, { username: 'dave' })
    status = await post(alice, 'popular')
    for (const user of [bob, carol, dave]) {
      await user.post(`/api/v1/statuses/${status}/reblog`).expect(200)
      await user.post(`/api/v1/statuses/${status}/favourite`).expect(200)
    }
  })

  it.each(['reblogged_by', 'favourited_by'])(
    '%s lists the accounts newest first with Link headers',
    async (what) => {
      const first = await alice.get(`/api/v1/statuses/${status}/${what}?limit=2`).expect(200)
      expect(first.body.map((a: { username: string }) => a.username)).toEqual(['dave', 'carol'])
      const { next, prev } = links(first.headers.link)
      expect(prev).toMatch(/since_id=/)
      const second = await alice.get(onStack(stack, next!)).expect(200)
      expect(second.body.map((a: { username: string }) => a.username)).toEqual(['bob'])
      expect(links(second.headers.link).next).toBeUndefined()

      const anonymous = await stack.api().get(`/api/v1/statuses/${status}/${what}`).expect(200)
      expect(anonymous.body).toHaveLength(3)
    },
  )

  it.each(['reblogged_by', 'favourited_by'])(
    '%s leaves out accounts the viewer blocks or mutes',
    async (what) => {
      await bob.post(`/api/v1/accounts/${carol.id}/block`).expect(200)
      await bob.post(`/api/v1/accounts/${dave.id}/mute`).expect(200)
      const res = await bob.get(`/api/v1/statuses/${status}/${what}`).expect(200)
      expect(res.body.map((a: { username: string }) => a.username)).toEqual(['bob'])
      await bob.post(`/api/v1/accounts/${carol.id}/unblock`).expect(200)
      await bob.post(`/api/v1/accounts/${dave.id}/unmute`).expect(200)
    },
  )

  it('answers 404 for a status the viewer cannot see', async () => {
    const secret = await post(alice, { status: 'private', visibility: 'private' })
    const res = await carol.get(`/api/v1/statuses/${secret}/favourited_by`).expect(404)
    expect(res.body).toEqual({ error: 'Not Found' })
  })
})

describe('GET /api/v1/statuses?id[]=', () => {
  it('returns the visible statuses among the ids, newest first', async () => {
    const a = await post(alice, 'one')
    const b = await post(bob, 'two')
    const hidden = await post(alice, { status: 'three', visibility: 'private' })
    const res = await carol
      .get(`/api/v1/statuses?id[]=${a}&id[]=${hidden}&id[]=${b}&id[]=${a}&id[]=nonsense&id[]=12345`)
      .expect(200)
    expect(ids(res.body)).toEqual([b, a])
    const anonymous = await stack.api().get(`/api/v1/statuses?id[]=${a}`).expect(200)
    expect(ids(anonymous.body)).toEqual([a])
    expect((await stack.api().get('/api/v1/statuses').expect(200)).body).toEqual([])
  })

  it('refuses more than 20 ids with 422', async () => {
    const query = Array.from({ length: 21 }, (_, i) => `id[]=${i + 1}`).join('&')
    const res = await alice.get(`/api/v1/statuses?${query}`).expect(422)
    expect(res.body).toEqual({ error: 'Mastodon::ValidationError' })
  })
})
