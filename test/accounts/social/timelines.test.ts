import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { links, onStack, PNG, post, signUp } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const ids = (body: { id: string }[]) => body.map((s) => s.id)

describe('GET /api/v1/timelines/public (§9.1)', () => {
  it('shows public posts to anyone; local, remote, only_media; Link next/prev', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const media = (await b.post('/api/v2/media').attach('file', PNG, 'p.png').expect(200)).body.id
    const first = await post(a, 'public one')
    await post(a, { status: 'unlisted', visibility: 'unlisted' })
    await post(a, { status: 'private', visibility: 'private' })
    const withMedia = await post(b, { status: 'picture', media_ids: [media] })
    await b.post(`/api/v1/statuses/${first}/reblog`).expect(200)

    const anonymous = await stack.api().get('/api/v1/timelines/public').expect(200)
    expect(ids(anonymous.body)).toEqual([withMedia, first])
    const authorised = await a.get('/api/v1/timelines/public').expect(200)
    expect(ids(authorised.body)).toEqual([withMedia, first])
    expect(ids((await a.get('/api/v1/timelines/public?local=true').expect(200)).body)).toEqual([
      withMedia,
      first,
    ])
    expect((await a.get('/api/v1/timelines/public?remote=true').expect(200)).body).toEqual([])
    expect(
      ids((await a.get('/api/v1/timelines/public?local=true&remote=true').expect(200)).body),
    ).toHaveLength(2)
    expect(ids((await a.get('/api/v1/timelines/public?only_media=true').expect(200)).body)).toEqual([
      withMedia,
    ])

    const one = await stack.api().get('/api/v1/timelines/public?limit=1&local=true').expect(200)
    expect(links(one.headers.link)).toEqual({
      next: `${stack.url}/api/v1/timelines/public?limit=1&local=true&max_id=${withMedia}`,
      prev: `${stack.url}/api/v1/timelines/public?limit=1&local=true&min_id=${withMedia}`,
    })
    const next = await stack
      .api()
      .get(onStack(stack, links(one.headers.link).next!))
      .expect(200)
    expect(ids(next.body)).toEqual([first])
    const end = await stack.api().get(`/api/v1/timelines/public?max_id=${first}`).expect(200)
    expect(end.body).toEqual([])
    expect(end.headers.link).toBeUndefined()

    // Blocked, muted, suspended and silenced authors drop out.
    const c = await signUp(stack)
    await c.post(`/api/v1/accounts/${b.id}/mute`).expect(200)
    expect(ids((await c.get('/api/v1/timelines/public').expect(200)).body)).toEqual([first])
    await stack.accounts.ctx.db('accounts').where({ id: a.id }).update({ silenced_at: new Date() })
    expect((await c.get('/api/v1/timelines/public').expect(200)).body).toEqual([])

    const profileOnly = await stack.userToken('profile', c)
    await stack
      .api()
      .get('/api/v1/timelines/public')
      .set('Authorization', `Bearer ${profileOnly}`)
      .expect(403)
  })
})
