import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'

let stack: Stack
let domain: string
beforeAll(async () => {
  stack = await startStack({ env: { LOCAL_DOMAIN: 'Roost.example:4100' } })
  domain = 'roost.example:4100'
})
afterAll(() => stack.stop())

const webfinger = (resource?: string) =>
  stack
    .api()
    .get('/.well-known/webfinger')
    .query(resource === undefined ? {} : { resource })

describe('WebFinger (GET /.well-known/webfinger)', () => {
  it('answers the JRD of a local account for acct:, a bare address, the actor URI and the profile URL', async () => {
    const alice = await stack.createUser({ username: 'Alice' })
    for (const resource of [
      `acct:alice@${domain}`,
      `Alice@${domain}`,
      `acct:ALICE@ROOST.EXAMPLE:4100`,
      `${stack.url}/users/Alice`,
      `${stack.url}/@alice`,
    ]) {
      const res = await webfinger(resource).expect(200)
      expect(res.headers['content-type']).toBe('application/jrd+json; charset=utf-8')
      expect(res.headers['cache-control']).toBe('max-age=259200, public')
      expect(JSON.parse(res.text)).toEqual({
        subject: `acct:Alice@${domain}`,
        aliases: [`${stack.url}/@Alice`, `${stack.url}/users/Alice`],
        links: [
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `${stack.url}/@Alice` },
          { rel: 'self', type: 'application/activity+json', href: `${stack.url}/users/Alice` },
          {
            rel: 'http://ostatus.org/schema/1.0/subscribe',
            template: `${stack.url}/authorize_interaction?uri={uri}`,
          },
        ],
      })
    }
    expect(alice.accountId).toBeTruthy()
  })

  it('answers the instance actor for acct:domain@domain and its URI', async () => {
    for (const resource of [`acct:${domain}@${domain}`, `${stack.url}/actor`]) {
      const res = await webfinger(resource).expect(200)
      const jrd = JSON.parse(res.text)
      expect(jrd.subject).toBe(`acct:${domain}@${domain}`)
      expect(jrd.links).toContainEqual({
        rel: 'self',
        type: 'application/activity+json',
        href: `${stack.url}/actor`,
      })
    }
  })

  it('404s for unknown, unconfirmed or pending accounts and other domains; 400 when malformed or missing', async () => {
    await stack.createUser({ username: 'pending', approved: false })
    await stack.createUser({ username: 'unconfirmed', confirmed: false })
    for (const resource of [
      `acct:nobody@${domain}`,
      `acct:pending@${domain}`,
      `acct:unconfirmed@${domain}`,
      'acct:alice@elsewhere.example',
      `acct:alice@${new URL(stack.url).host}`,
      'https://elsewhere.example/users/alice',
      `${stack.url}/about`,
    ]) {
      const res = await webfinger(resource).expect(404)
      expect(res.body).toEqual({ error: 'Record not found' })
      expect(res.headers['cache-control']).toBe('max-age=180, public')
    }
    for (const resource of [undefined, '', 'alice', 'acct:alice', 'acct:@x', 'https://[bad']) {
      const res = await webfinger(resource).expect(400)
      expect(res.body).toEqual({ error: 'Bad Request' })
      expect(res.headers['cache-control']).toBe('max-age=180, public')
    }
  })

  it('is 404 with FEDERATION=off', async () => {
    const off = await startStack({ env: { FEDERATION: 'off' } })
    try {
      await off.createUser({ username: 'bob' })
      const host = new URL(off.url).host
      await off
        .api()
        .get('/.well-known/webfinger')
        .query({ resource: `acct:bob@${host}` })
        .expect(404)
      const info = await off.api().get('/nodeinfo/2.0').expect(200)
      expect(info.body.protocols).toEqual([])
    } finally {
      await off.stop()
    }
  })
})

describe('NodeInfo', () => {
  it('links 2.0 from /.well-known/nodeinfo, which reports software roost, usage and registrations', async () => {
    const links = await stack.api().get('/.well-known/nodeinfo').expect(200)
    expect(links.body).toEqual({
      links: [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${stack.url}/nodeinfo/2.0` }],
    })
    expect(links.headers['access-control-allow-origin']).toBe('*')

    const before = (await stack.api().get('/nodeinfo/2.0').expect(200)).body
    const poster = await signUp(stack)
    await post(poster, 'hello')
    await post(poster, 'again')
    // A suspended account and a user away for months are counted as Mastodon counts them.
    const away = await stack.createUser()
    await stack.accounts.ctx
      .db('users')
      .where({ id: away.userId })
      .update({ current_sign_in_at: new Date(Date.now() - 90 * 86400_000) })
    const suspended = await stack.createUser()
    await stack.accounts.ctx
      .db('accounts')
      .where({ id: suspended.accountId })
      .update({ suspended_at: new Date() })

    const res = await stack.api().get('/nodeinfo/2.0').expect(200)
    expect(res.headers['cache-control']).toBe('max-age=1800, public')
    expect(res.body).toEqual({
      version: '2.0',
      software: { name: 'roost', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
      protocols: ['activitypub'],
      services: { outbound: [], inbound: [] },
      usage: {
        users: {
          total: before.usage.users.total + 2,
          activeMonth: before.usage.users.activeMonth + 1,
          activeHalfyear: before.usage.users.activeHalfyear + 2,
        },
        localPosts: before.usage.localPosts + 2,
      },
      openRegistrations: true,
      metadata: { nodeName: 'Roost', nodeDescription: expect.any(String) },
    })
  })

  it('says openRegistrations false when sign-ups are closed', async () => {
    const closed = await startStack({ env: { REGISTRATIONS_MODE: 'none' } })
    try {
      expect((await closed.api().get('/nodeinfo/2.0').expect(200)).body.openRegistrations).toBe(false)
    } finally {
      await closed.stop()
    }
  })
})

describe('profile and status pages', () => {
  it('serves /@username as an HTML page with OpenGraph tags, the public posts and the address to follow', async () => {
    const carol = await signUp(stack, { username: 'carol' })
    await stack.accounts.ctx
      .db('accounts')
      .where({ id: carol.id })
      .update({ display_name: 'Carol <C>', note: 'Bio & more' })
    const publicId = await post(carol, 'A public post for everyone')
    await post(carol, { status: 'Followers only', visibility: 'private' })
    await post(carol, { status: 'A direct one', visibility: 'direct' })

    const res = await stack.api().get('/@carol').set('Accept', 'text/html').expect(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['content-security-policy']).toContain("default-src 'none'")
    expect(res.text).toContain(
      '<meta property="og:title" content="Carol &lt;C&gt; (@carol@roost.example:4100)">',
    )
    expect(res.text).toContain(`<meta property="og:url" content="${stack.url}/@carol">`)
    expect(res.text).toContain('<meta property="og:description" content="Bio &amp; more">')
    expect(res.text).toContain(
      `<link rel="alternate" type="application/activity+json" href="${stack.url}/users/carol">`,
    )
    expect(res.text).toContain('A public post for everyone')
    expect(res.text).toContain(`href="${stack.url}/@carol/${publicId}"`)
    expect(res.text).not.toContain('Followers only')
    expect(res.text).not.toContain('A direct one')
    expect(res.text).toContain('@carol@roost.example:4100')
    expect(res.text).not.toContain('<C>')
    // Also without any Accept header (a plain link followed by a crawler).
    await stack
      .api()
      .get('/@Carol')
      .expect(200)
      .expect('Content-Type', /text\/html/)
  })

  it('serves /@username/:id for public and unlisted posts only, 404 pages otherwise', async () => {
    const dave = await signUp(stack, { username: 'dave' })
    const other = await signUp(stack)
    const unlisted = await post(dave, {
      status: 'Unlisted but linkable',
      visibility: 'unlisted',
      spoiler_text: 'CW',
    })
    const privateId = await post(dave, { status: 'Private', visibility: 'private' })
    const page = await stack.api().get(`/@dave/${unlisted}`).expect(200)
    expect(page.text).toContain('<meta property="og:type" content="article">')
    expect(page.text).toContain('<meta property="og:description" content="CW">')
    expect(page.text).toContain('<summary>CW</summary>')
    expect(page.text).toContain('Unlisted but linkable')

    for (const path of [
      `/@dave/${privateId}`,
      `/@${other.username}/${unlisted}`,
      '/@dave/99999999999999',
      '/@dave/not-an-id',
      '/@nobody',
      '/@nobody/1',
    ]) {
      const res = await stack.api().get(path).expect(404)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    }
  })

  it('shows a suspended account as suspended, without posts', async () => {
    const erin = await signUp(stack, { username: 'erin' })
    const id = await post(erin, 'Before the suspension')
    await stack.accounts.ctx.db('accounts').where({ id: erin.id }).update({ suspended_at: new Date() })
    const res = await stack.api().get('/@erin').expect(200)
    expect(res.text).toContain('This account has been suspended.')
    expect(res.text).not.toContain('Before the suspension')
    await stack.api().get(`/@erin/${id}`).expect(404)
  })
})
