import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

const today = () => String(Math.floor(Date.now() / 86_400_000) * 86_400)

describe('hashtags in statuses', () => {
  it('are extracted as Mastodon does, normalised, one tag per name, kept through edits', async () => {
    const me = await signUp(stack)
    const res = await me
      .post('/api/v1/statuses', { status: '#Roost and #roost, #BLÅHAJ #123 (#paren) #Café' })
      .expect(200)
    expect(res.body.tags).toEqual([
      { name: 'blahaj', url: `${stack.url}/tags/blahaj` },
      { name: 'cafe', url: `${stack.url}/tags/cafe` },
      { name: 'roost', url: `${stack.url}/tags/roost` },
    ])
    expect(res.body.content).toContain(
      `<a href="${stack.url}/tags/blahaj" class="mention hashtag" rel="tag">#<span>BLÅHAJ</span></a>`,
    )
    expect(res.body.content).toContain('(#paren)')
    const edited = await stack
      .api()
      .put(`/api/v1/statuses/${res.body.id}`)
      .set('Authorization', `Bearer ${me.token}`)
      .send({ status: 'now only #ROOST' })
      .expect(200)
    expect(edited.body.tags).toEqual([{ name: 'roost', url: `${stack.url}/tags/roost` }])
    const tagged = await me.get(`/api/v1/accounts/${me.id}/statuses?tagged=Roost`).expect(200)
    expect(tagged.body.map((s: { id: string }) => s.id)).toEqual([res.body.id])
    const folded = await me.get(`/api/v1/accounts/${me.id}/statuses?tagged=blåhaj`).expect(200)
    expect(folded.body).toEqual([])
  })
})

describe('GET /api/v1/tags/:name', () => {
  it('answers the Tag entity: first spelling, history of 7 days, following and featuring for a user', async () => {
    const [me, other] = [await signUp(stack), await signUp(stack)]
    await post(me, 'hello #Gardening')
    await post(other, 'me too #gardening')
    await post(other, 'again #GARDENING')
    await post(other, { status: 'not counted #gardening', visibility: 'unlisted' })

    const res = await me.get('/api/v1/tags/gArDeNiNg').expect(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Gardening',
      url: `${stack.url}/tags/gardening`,
      history: expect.any(Array),
      following: false,
      featuring: false,
    })
    expect(res.body.history).toHaveLength(7)
    expect(res.body.history[0]).toEqual({ day: today(), uses: '3', accounts: '2' })
    expect(res.body.history[1]).toEqual({ day: String(Number(today()) - 86_400), uses: '0', accounts: '0' })

    const anonymous = await stack.api().get('/api/v1/tags/gardening').expect(200)
    expect(anonymous.body).not.toHaveProperty('following')
    expect(anonymous.body).not.toHaveProperty('featuring')
    expect(anonymous.body.id).toBe(res.body.id)
  })

  it('an unused tag is 200 with an empty id; a name that is not a hashtag is 404', async () => {
    const me = await signUp(stack)
    const unknown = await me.get(`/api/v1/tags/${encodeURIComponent('NeverUsed')}`).expect(200)
    expect(unknown.body).toMatchObject({
      id: '',
      name: 'NeverUsed',
      url: `${stack.url}/tags/neverused`,
      following: false,
    })
    expect(unknown.body.history.every((d: { uses: string }) => d.uses === '0')).toBe(true)
    await me.get('/api/v1/tags/123').expect(404, { error: 'Not Found' })
    await me.get('/api/v1/tags/foo-bar').expect(404, { error: 'Not Found' })
    const japanese = await me.get(`/api/v1/tags/${encodeURIComponent('日本語')}`).expect(200)
    expect(japanese.body.url).toBe(`${stack.url}/tags/${encodeURIComponent('日本語')}`)
  })
})
