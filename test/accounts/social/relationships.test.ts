import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { links, onStack, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const accountOf = async (user: TestUser) => stack.accounts.ctx.db('accounts').where({ id: user.id }).first()
const suspend = (user: TestUser) =>
  stack.accounts.ctx.db('accounts').where({ id: user.id }).update({ suspended_at: new Date() })

describe('follow, unfollow, remove_from_followers (§3.11)', () => {
  it('follows an unlocked account at once, with options, and keeps counters', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const res = await a
      .post(`/api/v1/accounts/${b.id}/follow`, { notify: true, languages: ['en'] })
      .expect(200)
    expect(res.body).toMatchObject({
      id: b.id,
      following: true,
      requested: false,
      showing_reblogs: true,
      notifying: true,
      languages: ['en'],
      followed_by: false,
    })
    expect((await accountOf(a)).following_count).toBe(1)
    expect((await accountOf(b)).followers_count).toBe(1)
    // Again: only the options given change.
    const again = await a.post(`/api/v1/accounts/${b.id}/follow`, { reblogs: false }).expect(200)
    expect(again.body).toMatchObject({ following: true, showing_reblogs: false, notifying: true })
    expect((await accountOf(b)).followers_count).toBe(1)

    const un = await a.post(`/api/v1/accounts/${b.id}/unfollow`).expect(200)
    expect(un.body).toMatchObject({ following: false, showing_reblogs: false, notifying: false })
    expect((await accountOf(a)).following_count).toBe(0)
    expect((await accountOf(b)).followers_count).toBe(0)
    await a.post(`/api/v1/accounts/${b.id}/unfollow`).expect(200)

    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    const removed = await b.post(`/api/v1/accounts/${a.id}/remove_from_followers`).expect(200)
    expect(removed.body).toMatchObject({ id: a.id, followed_by: false })
    expect((await accountOf(b)).followers_count).toBe(0)
  })

  it('refuses self-follow (403), blocked pairs (403), unknown accounts (404), bad languages (422)', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const self = await a.post(`/api/v1/accounts/${a.id}/follow`).expect(403)
    expect(self.body).toEqual({ error: 'Following your own account is not allowed' })
    expect((await a.post('/api/v1/accounts/123456/follow').expect(404)).body).toEqual({
      error: 'Record not found',
    })
    await a.post('/api/v1/accounts/not-an-id/follow').expect(404)
    await a.post('/api/v1/accounts/99999999999999999999/follow').expect(404)
    expect(
      (await a.post(`/api/v1/accounts/${b.id}/follow`, { languages: ['english'] }).expect(422)).body.error,
    ).toMatch(/Validation failed/)
    await b.post(`/api/v1/accounts/${a.id}/block`).expect(200)
    expect((await a.post(`/api/v1/accounts/${b.id}/follow`).expect(403)).body).toEqual({
      error: 'This action is not allowed',
    })
    await b.post(`/api/v1/accounts/${a.id}/unblock`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    const c = await signUp(stack)
    await suspend(c)
    await a.post(`/api/v1/accounts/${c.id}/follow`).expect(404)
  })

  it('follows of a locked account become requests; authorize and reject (§8.11)', async () => {
    const locked = await signUp(stack)
    await stack.accounts.ctx.db('accounts').where({ id: locked.id }).update({ locked: true })
    const [x, y] = [await signUp(stack), await signUp(stack)]
    const res = await x.post(`/api/v1/accounts/${locked.id}/follow`, { reblogs: false }).expect(200)
    expect(res.body).toMatchObject({ following: false, requested: true, showing_reblogs: false })
    await y.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)

    const list = await locked.get('/api/v1/follow_requests').expect(200)
    expect(list.body.map((a: { id: string; username: string; acct: string }) => [a.id, a.acct])).toEqual([
      [y.id, y.username],
      [x.id, x.username],
    ])
    const one = await locked.get('/api/v1/follow_requests?limit=1').expect(200)
    expect(one.body).toHaveLength(1)
    expect(links(one.headers.link).next).toMatch(/\/api\/v1\/follow_requests\?limit=1&max_id=\d+$/)

    const readOnly = await signUp(stack, { scope: 'read read:follows' })
    await readOnly.post(`/api/v1/follow_requests/${x.id}/authorize`).expect(403)
    const wrongScope = await stack.userToken('write write:follows', locked)
    await stack.api().get('/api/v1/follow_requests').set('Authorization', `Bearer ${wrongScope}`).expect(403)

    const ok = await locked.post(`/api/v1/follow_requests/${x.id}/authorize`).expect(200)
    expect(ok.body).toMatchObject({ id: x.id, followed_by: true, requested_by: false })
    expect((await x.get(`/api/v1/accounts/relationships?id=${locked.id}`).expect(200)).body[0]).toMatchObject(
      {
        following: true,
        showing_reblogs: false,
        requested: false,
      },
    )
    expect((await accountOf(locked)).followers_count).toBe(1)
    const no = await locked.post(`/api/v1/follow_requests/${y.id}/reject`).expect(200)
    expect(no.body).toMatchObject({ id: y.id, followed_by: false, requested_by: false })
    await locked.post(`/api/v1/follow_requests/${y.id}/reject`).expect(404)
    await locked.post('/api/v1/follow_requests/abc/authorize').expect(404)
    expect((await locked.get('/api/v1/follow_requests').expect(200)).body).toEqual([])
  })
})

describe('block, mute and their lists (§3.12, §3.13, §8.11)', () => {
  it('block ends follows both ways and rejects pending requests; unblock', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    await b.post(`/api/v1/accounts/${a.id}/follow`).expect(200)
    const res = await a.post(`/api/v1/accounts/${b.id}/block`).expect(200)
    expect(res.body).toMatchObject({ blocking: true, following: false, followed_by: false })
    expect(await accountOf(a)).toMatchObject({ followers_count: 0, following_count: 0 })
    expect((await b.get(`/api/v1/accounts/relationships?id[]=${a.id}`).expect(200)).body[0].blocked_by).toBe(
      true,
    )

    const locked = await signUp(stack)
    await stack.accounts.ctx.db('accounts').where({ id: locked.id }).update({ locked: true })
    await a.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    await locked.post(`/api/v1/accounts/${a.id}/block`).expect(200)
    expect((await locked.get('/api/v1/follow_requests').expect(200)).body).toEqual([])

    expect((await a.post(`/api/v1/accounts/${a.id}/block`).expect(200)).body.blocking).toBe(false)
    expect((await a.post(`/api/v1/accounts/${b.id}/unblock`).expect(200)).body.blocking).toBe(false)
  })

  it('lists blocks by block id with Link headers; wrong scope → 403', async () => {
    const me = await signUp(stack)
    const targets = [await signUp(stack), await signUp(stack), await signUp(stack)]
    for (const t of targets) await me.post(`/api/v1/accounts/${t.id}/block`).expect(200)
    const all = await me.get('/api/v1/blocks').expect(200)
    expect(all.body.map((a: { id: string }) => a.id)).toEqual(targets.map((t) => t.id).reverse())
    const blockIds: string[] = await stack.accounts.ctx
      .db('blocks')
      .where({ account_id: me.id })
      .orderBy('id', 'desc')
      .pluck('id')
    const page = await me.get('/api/v1/blocks?limit=2').expect(200)
    expect(page.body).toHaveLength(2)
    expect(links(page.headers.link)).toEqual({
      next: `${stack.url}/api/v1/blocks?limit=2&max_id=${blockIds[1]}`,
      prev: `${stack.url}/api/v1/blocks?limit=2&since_id=${blockIds[0]}`,
    })
    expect((await me.get(`/api/v1/blocks?max_id=${blockIds[1]}`).expect(200)).body[0].id).toBe(targets[0]!.id)
    expect((await me.get(`/api/v1/blocks?since_id=${blockIds[1]}`).expect(200)).body[0].id).toBe(
      targets[2]!.id,
    )
    const wrong = await stack.userToken('write write:blocks', me)
    await stack.api().get('/api/v1/blocks').set('Authorization', `Bearer ${wrong}`).expect(403)
  })

  it('mutes with notifications and duration; a timed mute ends on its own; lists mutes', async () => {
    const [me, a, b] = [await signUp(stack), await signUp(stack), await signUp(stack)]
    const res = await me
      .post(`/api/v1/accounts/${a.id}/mute`, { notifications: false, duration: 3600 })
      .expect(200)
    expect(res.body).toMatchObject({ muting: true, muting_notifications: false })
    const expires = Date.parse(res.body.muting_expires_at)
    expect(Math.abs(expires - Date.now() - 3600_000)).toBeLessThan(60_000)
    const forever = await me.post(`/api/v1/accounts/${b.id}/mute`).expect(200)
    expect(forever.body).toMatchObject({ muting: true, muting_notifications: true, muting_expires_at: null })

    const list = await me.get('/api/v1/mutes').expect(200)
    expect(
      list.body.map((m: { id: string; mute_expires_at: string | null }) => [m.id, !!m.mute_expires_at]),
    ).toEqual([
      [b.id, false],
      [a.id, true],
    ])
    const one = await me.get('/api/v1/mutes?limit=1').expect(200)
    const muteIds: string[] = await stack.accounts.ctx
      .db('mutes')
      .where({ account_id: me.id })
      .orderBy('id', 'desc')
      .pluck('id')
    expect(links(one.headers.link)).toEqual({
      next: `${stack.url}/api/v1/mutes?limit=1&max_id=${muteIds[0]}`,
      prev: `${stack.url}/api/v1/mutes?limit=1&since_id=${muteIds[0]}`,
    })

    // Time passes: the mute of `a` expires, is no longer shown anywhere, and is cleaned up.
    await stack.accounts.ctx
      .db('mutes')
      .where({ account_id: me.id, target_account_id: a.id })
      .update({
        expires_at: new Date(Date.now() - 1000),
      })
    expect((await me.get(`/api/v1/accounts/relationships?id=${a.id}`).expect(200)).body[0].muting).toBe(false)
    expect((await me.get('/api/v1/mutes').expect(200)).body.map((m: { id: string }) => m.id)).toEqual([b.id])
    expect(await stack.accounts.ctx.db('mutes').where({ target_account_id: a.id }).first()).toBeUndefined()

    expect((await me.post(`/api/v1/accounts/${b.id}/unmute`).expect(200)).body.muting).toBe(false)
    expect((await me.post(`/api/v1/accounts/${me.id}/mute`).expect(200)).body.muting).toBe(false)
    await me.post(`/api/v1/accounts/${b.id}/mute`, { duration: 'soon' }).expect(400)
    await me.post(`/api/v1/accounts/${b.id}/mute`, { duration: -5 }).expect(422)
    await stack.api().get('/api/v1/mutes').expect(401)
    const wrong = await stack.userToken('write write:mutes', me)
    await stack.api().get('/api/v1/mutes').set('Authorization', `Bearer ${wrong}`).expect(403)
  })
})

describe('GET /api/v1/accounts/relationships (§8.9)', () => {
  it('answers per id, drops suspended unless with_suspended, de-duplicates', async () => {
    const [viewer, simon, lewis, bob] = [
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
    ]
    await viewer.post(`/api/v1/accounts/${simon.id}/follow`).expect(200)
    await lewis.post(`/api/v1/accounts/${viewer.id}/follow`).expect(200)
    await suspend(bob)

    const single = await viewer.get(`/api/v1/accounts/relationships?id=${simon.id}`).expect(200)
    expect(single.body).toHaveLength(1)
    expect(single.body[0]).toMatchObject({ following: true, followed_by: false })

    const q = `id[]=${simon.id}&id[]=${lewis.id}&id[]=${bob.id}`
    const res = await viewer.get(`/api/v1/accounts/relationships?${q}`).expect(200)
    const none = { muting: false, requested: false, domain_blocking: false }
    expect(res.body).toEqual([
      expect.objectContaining({
        id: simon.id,
        following: true,
        showing_reblogs: true,
        followed_by: false,
        ...none,
      }),
      expect.objectContaining({
        id: lewis.id,
        following: false,
        showing_reblogs: false,
        followed_by: true,
        ...none,
      }),
    ])
    const all = await viewer.get(`/api/v1/accounts/relationships?${q}&with_suspended=true`).expect(200)
    expect(all.body).toHaveLength(3)
    expect(all.body[2]).toMatchObject({ id: bob.id, following: false, followed_by: false, blocking: false })
    const dup = await viewer.get(
      `/api/v1/accounts/relationships?id[]=${simon.id}&id[]=${lewis.id}&id[]=${simon.id}`,
    )
    expect(dup.body).toHaveLength(2)
    const other = await viewer.get(`/api/v1/accounts/relationships?id[]=${lewis.id}`).expect(200)
    expect(other.body.map((r: { id: string }) => r.id)).toEqual([lewis.id])

    await viewer.post(`/api/v1/accounts/${simon.id}/unfollow`).expect(200)
    const after = await viewer.get(`/api/v1/accounts/relationships?id=${simon.id}`).expect(200)
    expect(after.body[0]).toMatchObject({ following: false, showing_reblogs: false })
    expect((await viewer.get('/api/v1/accounts/relationships?id[]=abc&id[]=1').expect(200)).body).toEqual([])
    const wrong = await stack.userToken('write', viewer)
    await stack
      .api()
      .get('/api/v1/accounts/relationships')
      .set('Authorization', `Bearer ${wrong}`)
      .expect(403)
  })
})

describe('followers and following (§3.6, §8.8)', () => {
  it('lists both; hides blocked accounts from the viewer; empty when the owner blocks you', async () => {
    const [owner, one, two, viewer] = [
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
    ]
    for (const u of [one, two]) {
      await u.post(`/api/v1/accounts/${owner.id}/follow`).expect(200)
      await owner.post(`/api/v1/accounts/${u.id}/follow`).expect(200)
    }
    for (const list of ['followers', 'following']) {
      const path = `/api/v1/accounts/${owner.id}/${list}?limit=2`
      expect((await viewer.get(path).expect(200)).body.map((a: { id: string }) => a.id)).toEqual([
        two.id,
        one.id,
      ])
    }
    await viewer.post(`/api/v1/accounts/${one.id}/block`).expect(200)
    for (const list of ['followers', 'following'])
      expect(
        (await viewer.get(`/api/v1/accounts/${owner.id}/${list}`).expect(200)).body.map(
          (a: { id: string }) => a.id,
        ),
      ).toEqual([two.id])
    // The owner sees everyone, muted included.
    await owner.post(`/api/v1/accounts/${one.id}/mute`).expect(200)
    expect((await owner.get(`/api/v1/accounts/${owner.id}/followers`).expect(200)).body).toHaveLength(2)
    await owner.post(`/api/v1/accounts/${viewer.id}/block`).expect(200)
    const blocked = await viewer.get(`/api/v1/accounts/${owner.id}/followers`).expect(200)
    expect(blocked.body).toEqual([])
    expect(blocked.headers.link).toBeUndefined()
  })

  it('hide_collections hides them from others; suspension empties them', async () => {
    const [owner, fan] = [await signUp(stack), await signUp(stack)]
    await fan.post(`/api/v1/accounts/${owner.id}/follow`).expect(200)
    await stack.accounts.ctx.db('accounts').where({ id: owner.id }).update({ hide_collections: true })
    expect((await fan.get(`/api/v1/accounts/${owner.id}/followers`).expect(200)).body).toEqual([])
    expect((await owner.get(`/api/v1/accounts/${owner.id}/followers`).expect(200)).body).toHaveLength(1)
    await suspend(fan)
    expect((await stack.api().get(`/api/v1/accounts/${fan.id}/following`).expect(200)).body).toEqual([])
    await stack.api().get('/api/v1/accounts/4242/followers').expect(404)
  })

  it.each(['followers', 'following'])(
    'walks %s of an account with 250 by Link next and back by prev',
    async (list) => {
      const owner = await signUp(stack)
      const db = stack.accounts.ctx.db
      // The listing is under test: 250 accounts and their follows go in directly.
      const others: string[] = (
        await db('accounts')
          .insert(
            Array.from({ length: 250 }, (_, i) => ({
              username: `${list.slice(0, 3)}${owner.id.slice(-10)}_${i}`,
            })),
          )
          .returning('id')
      ).map((r: { id: string }) => r.id)
      const rows = others.map((id) =>
        list === 'followers'
          ? { account_id: id, target_account_id: owner.id }
          : { account_id: owner.id, target_account_id: id },
      )
      const followIds: { id: string; other: string }[] = (
        await db('follows').insert(rows).returning(['id', 'account_id', 'target_account_id'])
      ).map((r: { id: string; account_id: string; target_account_id: string }) => ({
        id: r.id,
        other: list === 'followers' ? r.account_id : r.target_account_id,
      }))
      const newestFirst = followIds.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
      const expected = newestFirst.map((f) => f.other)

      const seen: string[] = []
      let path: string | undefined = `/api/v1/accounts/${owner.id}/${list}`
      let pages = 0
      while (path) {
        const res: { body: { id: string }[]; headers: Record<string, string> } = await stack
          .api()
          .get(path)
          .expect(200)
        seen.push(...res.body.map((a: { id: string }) => a.id))
        pages++
        const next: string | undefined = links(res.headers.link).next
        path = next ? onStack(stack, next) : undefined
      }
      expect(seen).toEqual(expected)
      expect(pages).toBe(7) // six full pages of 40 and one of 10

      // Back from the last page by rel="prev" (since_id: the newest page after the cursor).
      const tail = await stack
        .api()
        .get(`/api/v1/accounts/${owner.id}/${list}?limit=80&max_id=${newestFirst[169]!.id}`)
      expect(tail.body.map((a: { id: string }) => a.id)).toEqual(expected.slice(170))
      const prev = links(tail.headers.link).prev!
      expect(prev).toBe(
        `${stack.url}/api/v1/accounts/${owner.id}/${list}?limit=80&since_id=${newestFirst[170]!.id}`,
      )
      const newer = await stack.api().get(onStack(stack, prev)).expect(200)
      expect(newer.body.map((a: { id: string }) => a.id)).toEqual(expected.slice(0, 80))

      const capped = await stack.api().get(`/api/v1/accounts/${owner.id}/${list}?limit=1000`).expect(200)
      expect(capped.body).toHaveLength(80)
    },
  )
})
