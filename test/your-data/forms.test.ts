import request from 'supertest'
import yauzl from 'yauzl'
import { Secret, TOTP } from 'otpauth'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

/**
 * Invites, exports, imports, archives and deletion through their forms and the API (docs/security.md, "Invites",
 * "Your data", "Leaving"), with bad input on every form: each answers a clear error and changes nothing. The CSV
 * columns and their order are Mastodon's: app/models/export.rb writes them and app/models/form/import.rb
 * (EXPECTED_HEADERS_BY_TYPE) reads them back, in mastodon/mastodon.
 */
let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { REGISTRATIONS_MODE: 'none', INVITES_MIN_ROLE: 'moderator' } })
}, 60_000)
afterAll(async () => {
  await stack?.stop()
})

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!
const db = () => stack.accounts.ctx.db
/** A page's text as a person reads it (the HTML escapes undone). */
const shown = (html: string) =>
  html
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

/** A browser signed in to the settings pages (/auth/sign_in, the OAuth pages' session cookie). */
async function signedIn(user: { email: string; password: string }) {
  const agent = request.agent(stack.url)
  const form = await agent.get('/auth/sign_in?return_to=/settings/export').expect(200)
  await agent
    .post('/auth/sign_in')
    .type('form')
    .send({
      action: 'sign_in',
      email: user.email,
      password: user.password,
      return_to: '/settings/export',
      csrf_token: csrfOf(form.text),
    })
    .expect(303)
    .expect('Location', '/settings/export')
  return agent
}

/** The CSRF token of a settings page. */
const tokenOf = async (agent: request.Agent, path: string) => csrfOf((await agent.get(path).expect(200)).text)

describe('settings sign-in', () => {
  it('sends a visitor without a session to sign in, and back; a form without one is a 401', async () => {
    await request(stack.url)
      .get('/settings/imports')
      .expect(303)
      .expect('Location', '/auth/sign_in?return_to=%2Fsettings%2Fimports')
    for (const path of ['/settings/invites', '/settings/imports', '/settings/delete'])
      await request(stack.url).post(path).type('form').send({ csrf_token: 'x' }).expect(401)
  })
})

describe('invites', () => {
  let mod: TestUser & { email: string; password: string }
  beforeAll(async () => {
    mod = (await signUp(stack, { username: 'moddy' })) as never
    await db()('users').where({ id: mod.userId }).update({ role: 'moderator' })
  })

  it('a user below INVITES_MIN_ROLE may not invite, through the API or the page', async () => {
    const user = await signUp(stack)
    const res = await user.post('/api/v1/invites', { max_uses: 1 }).expect(403)
    expect(res.body.error).toBe('You are not allowed to invite people')
    const agent = await signedIn(user as never)
    const page = await agent.get('/settings/invites').expect(200)
    expect(page.text).not.toContain('Generate invite link')
    const refused = await agent
      .post('/settings/invites')
      .type('form')
      .send({ csrf_token: await tokenOf(agent, '/settings/export') })
      .expect(403)
    expect(refused.text).toContain('You are not allowed to invite people')
    expect(await db()('invites').where({ user_id: user.userId })).toEqual([])
  })

  it('makes, lists and expires invites through the Roost API; bad settings are 422', async () => {
    const made = await mod
      .post('/api/v1/invites', { max_uses: 5, expires_in: 86400, comment: 'friends' })
      .expect(200)
    expect(made.body).toMatchObject({
      uses: 0,
      max_uses: 5,
      comment: 'friends',
      url: `${stack.url}/invite/${made.body.code}`,
    })
    expect(made.body.code).toMatch(/^[A-Za-z0-9]{8}$/)
    expect((await mod.get('/api/v1/invites').expect(200)).body.map((i: { id: string }) => i.id)).toContain(
      made.body.id,
    )
    const bad = await mod.post('/api/v1/invites', { max_uses: 7 }).expect(422)
    expect(bad.body.error).toMatch(/Max uses must be one of/)
    expect((await mod.post('/api/v1/invites', { expires_in: 5 }).expect(422)).body.error).toMatch(
      /Expires in/,
    )
    const expired = await mod.delete(`/api/v1/invites/${made.body.id}`).expect(200)
    expect(new Date(expired.body.expires_at).getTime()).toBeLessThanOrEqual(Date.now())
    // Someone else's invite is not found.
    const other = await signUp(stack)
    await other.delete(`/api/v1/invites/${made.body.id}`).expect(404)
  })

  it('signs up through an invite while registrations are closed; a used-up or expired invite is refused', async () => {
    const app = await stack.appToken('read write')
    const body = (username: string, invite_code?: string) => ({
      username,
      email: `${username}@example.test`,
      password: 'a long enough password',
      agreement: true,
      locale: 'en',
      ...(invite_code ? { invite_code } : {}),
    })
    // Closed: no invite, 403.
    await request(stack.url).post('/api/v1/accounts').set(bearer(app)).send(body('nobody')).expect(403)
    const once = (await mod.post('/api/v1/invites', { max_uses: 1 }).expect(200)).body
    const res = await request(stack.url)
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send(body('invited', once.code))
      .expect(200)
    expect(res.body.access_token).toBeDefined()
    const user = await db()('users')
      .join('accounts', 'accounts.id', 'users.account_id')
      .where('accounts.username', 'invited')
      .first('users.*')
    expect(user).toMatchObject({ approved: true, invite_id: once.id })
    // Used up: the API counts it as none (closed: 403), the page says why (410).
    await request(stack.url)
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send(body('second', once.code))
      .expect(403)
    const page = await request(stack.url).get(`/invite/${once.code}`).expect(410)
    expect(page.text).toContain('used as many times as it may')
    // Expired.
    const old = (await mod.post('/api/v1/invites', {}).expect(200)).body
    await db()('invites')
      .where({ id: old.id })
      .update({ expires_at: new Date(Date.now() - 1000) })
    expect((await request(stack.url).get(`/invite/${old.code}`).expect(410)).text).toContain(
      'This invite link has expired',
    )
    await request(stack.url)
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send(body('third', old.code))
      .expect(403)
    // Unknown.
    await request(stack.url).get('/invite/zzzzzzzz').expect(404)
    expect(await db()('accounts').whereIn('username', ['nobody', 'second', 'third'])).toEqual([])
  })

  it("the invite page's form: a missing CSRF token or a bad password changes nothing", async () => {
    const invite = (await mod.post('/api/v1/invites', { max_uses: 1 }).expect(200)).body
    const agent = request.agent(stack.url)
    const form = await agent.get(`/invite/${invite.code}`).expect(200)
    const fields = {
      username: 'pagejoin',
      email: 'pagejoin@example.test',
      password: 'long password 1',
      password_confirmation: 'long password 1',
      agreement: '1',
    }
    await agent.post(`/invite/${invite.code}`).type('form').send(fields).expect(403)
    const mismatch = await agent
      .post(`/invite/${invite.code}`)
      .type('form')
      .send({ ...fields, password_confirmation: 'other', csrf_token: csrfOf(form.text) })
      .expect(422)
    expect(shown(mismatch.text)).toContain("Password confirmation doesn't match Password")
    expect(await db()('accounts').where({ username: 'pagejoin' }).first()).toBeUndefined()
    expect((await db()('invites').where({ id: invite.id }).first()).uses).toBe(0)
    const ok = await agent
      .post(`/invite/${invite.code}`)
      .type('form')
      .send({ ...fields, csrf_token: csrfOf(form.text) })
      .expect(200)
    expect(ok.text).toContain('Welcome, @pagejoin')
  })
})

describe('exports and imports', () => {
  it("writes Mastodon's CSV files", async () => {
    const me = await signUp(stack, { username: 'exporter' })
    const friend = await signUp(stack, { username: 'friendly' })
    const pest = await signUp(stack, { username: 'pesty' })
    await me
      .post(`/api/v1/accounts/${friend.id}/follow`, { reblogs: false, languages: ['en', 'fr'] })
      .expect(200)
    await me.post(`/api/v1/accounts/${pest.id}/mute`, { notifications: false }).expect(200)
    const blocked = await signUp(stack)
    await me.post(`/api/v1/accounts/${blocked.id}/block`).expect(200)
    await me.post('/api/v1/domain_blocks', { domain: 'spam.example' }).expect(200)
    const list = (await me.post('/api/v1/lists', { title: 'Pals, "close"' }).expect(200)).body
    await me.post(`/api/v1/lists/${list.id}/accounts`, { account_ids: [friend.id] }).expect(200)
    const status = await post(friend, 'bookmark me')
    await me.post(`/api/v1/statuses/${status}/bookmark`).expect(200)
    const agent = await signedIn(me as never)
    const host = new URL(stack.url).host
    const csv = async (file: string, name: string) => {
      const res = await agent
        .get(`/settings/exports/${file}`)
        .expect(200)
        .expect('Content-Type', /text\/csv/)
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${name}"`)
      return res.text
    }
    expect(await csv('follows.csv', 'following_accounts.csv')).toBe(
      `Account address,Show boosts,Notify on new posts,Languages\nfriendly@${host},false,false,"en, fr"\n`,
    )
    expect(await csv('mutes.csv', 'muted_accounts.csv')).toBe(
      `Account address,Hide notifications\npesty@${host},false\n`,
    )
    expect(await csv('blocks.csv', 'blocked_accounts.csv')).toBe(`${blocked.username}@${host}\n`)
    expect(await csv('domain_blocks.csv', 'blocked_domains.csv')).toBe('spam.example\n')
    expect(await csv('lists.csv', 'lists.csv')).toBe(`"Pals, ""close""",friendly@${host}\n`)
    expect(await csv('bookmarks.csv', 'bookmarks.csv')).toBe(
      `${stack.url}/users/friendly/statuses/${status}\n`,
    )
    await agent.get('/settings/exports/passwords.csv').expect(404)
  })

  it('imports a CSV by a job with progress, reports the rows that failed, merges or overwrites', async () => {
    const me = await signUp(stack, { username: 'importer' })
    const a = await signUp(stack, { username: 'impa' })
    const b = await signUp(stack, { username: 'impb' })
    const old = await signUp(stack, { username: 'impold' })
    await me.post(`/api/v1/accounts/${old.id}/follow`).expect(200)
    const host = new URL(stack.url).host
    const agent = await signedIn(me as never)
    const file = `Account address,Show boosts,Notify on new posts,Languages\nimpa@${host},false,true,de\n@impb,true,false,\nghost@${host},true,false,\n`
    const upload = async (
      type: string,
      mode: string,
      data: string | Buffer,
      name = 'following_accounts.csv',
    ) =>
      agent
        .post('/settings/imports')
        .field('csrf_token', await tokenOf(agent, '/settings/imports'))
        .field('type', type)
        .field('mode', mode)
        .attach('data', Buffer.isBuffer(data) ? data : Buffer.from(data), name)
    const res = await upload('following', 'overwrite', file)
    // Post/Redirect/Get: back to the page of imports, where the progress shows.
    expect(res.status).toBe(303)
    expect(res.headers.location).toBe('/settings/imports')
    await stack.drain()
    const imp = await db()('imports').where({ account_id: me.id }).first()
    expect(imp).toMatchObject({ state: 'finished', total_items: 3, processed_items: 3, imported_items: 2 })
    expect(imp.failures).toEqual([{ row: 3, value: `ghost@${host}`, error: 'No such account' }])
    const page = await agent.get('/settings/imports').expect(200)
    expect(page.text).toContain(`row 3: ghost@${host} — No such account`)
    const follows = await db()('follows').where({ account_id: me.id }).orderBy('target_account_id')
    expect(follows.map((f: { target_account_id: string }) => f.target_account_id).sort()).toEqual(
      [a.id, b.id].sort(),
    )
    expect(follows.find((f: { target_account_id: string }) => f.target_account_id === a.id)).toMatchObject({
      show_reblogs: false,
      notify: true,
      languages: ['de'],
    })
    // Merge keeps what is there.
    const merged = await upload(
      'muting',
      'merge',
      `Account address,Hide notifications\nimpold@${host},false\n`,
      'muted_accounts.csv',
    )
    expect(merged.status).toBe(303)
    await stack.drain()
    expect(await db()('mutes').where({ account_id: me.id, target_account_id: old.id }).first()).toMatchObject(
      { hide_notifications: false },
    )
  })

  it('refuses an oversized file, 100,000 rows, wrong columns, a bad type and a missing CSRF token, storing nothing', async () => {
    const me = await signUp(stack)
    const agent = await signedIn(me as never)
    const send = async (fields: Record<string, string>, data?: Buffer) => {
      const req = agent.post('/settings/imports')
      for (const [k, v] of Object.entries(fields)) req.field(k, v)
      if (data) req.attach('data', data, 'following_accounts.csv')
      return req
    }
    const csrf = await tokenOf(agent, '/settings/imports')
    const follow = { csrf_token: csrf, type: 'following', mode: 'merge' }
    const big = Buffer.alloc(21 * 1024 * 1024, 'a')
    expect((await send(follow, big)).status).toBe(422)
    expect((await send(follow, big)).text).toContain('Data file is too large (maximum is 20 MB)')
    const rows = Buffer.from(`Account address\n${'someone@example.com\n'.repeat(100_000)}`)
    const many = await send(follow, rows)
    expect(many.status).toBe(422)
    expect(many.text).toContain('Data has more rows than the 20000 that can be imported at once')
    const wrong = await send(follow, Buffer.from('#domain\nspam.example\n'))
    expect(wrong.status).toBe(422)
    expect(wrong.text).toContain('does not have the columns of this import type')
    expect((await send({ ...follow, type: 'passwords' }, Buffer.from('x\n'))).text).toContain(
      'Type must be one of',
    )
    expect((await send({ ...follow, mode: 'replace' }, Buffer.from('x\n'))).text).toContain(
      'Mode must be merge or overwrite',
    )
    expect((await send(follow, Buffer.from('"unclosed\n'))).text).toContain('not a valid CSV file')
    expect((await send(follow, Buffer.from(''))).text).toContain('Data file is empty')
    expect(shown((await send(follow)).text)).toContain("Data can't be blank")
    const forged = await send(
      { type: 'following', mode: 'merge' },
      Buffer.from('Account address\nx@example.com\n'),
    )
    expect(forged.status).toBe(403)
    expect(await db()('imports').where({ account_id: me.id })).toEqual([])
  })
})

/** The entries of a zip, by name. */
function unzip(data: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err)
      const out = new Map<string, Buffer>()
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e)
          const chunks: Buffer[] = []
          stream.on('data', (c: Buffer) => chunks.push(c))
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks))
            zip.readEntry()
          })
        }),
      )
      zip.on('end', () => resolve(out))
      zip.readEntry()
    })
  })
}

describe('archive', () => {
  it('builds a zip of outbox.json, actor.json, likes.json, bookmarks.json and the media, once a week', async () => {
    const me = await signUp(stack, { username: 'archivist' })
    const other = await signUp(stack)
    const media = await me.post('/api/v2/media').attach('file', PNG, 'dot.png')
    expect(media.status).toBeLessThan(300)
    const mine = await post(me, { status: 'with a picture', media_ids: [media.body.id] })
    await post(me, { status: 'only followers', visibility: 'private' })
    const theirs = await post(other, 'liked')
    await me.post(`/api/v1/statuses/${theirs}/favourite`).expect(200)
    await me.post(`/api/v1/statuses/${theirs}/bookmark`).expect(200)
    const agent = await signedIn(me as never)
    const csrf = await tokenOf(agent, '/settings/export')
    await agent.post('/settings/export').type('form').send({}).expect(403)
    await agent.post('/settings/export').type('form').send({ csrf_token: csrf }).expect(200)
    await stack.drain()
    const archive = await eventually(() =>
      db()('archives').where({ user_id: me.userId, state: 'done' }).first(),
    )
    const page = await agent.get('/settings/export').expect(200)
    expect(page.text).toContain(`/settings/exports/archives/${archive.id}`)
    // Once a week.
    const again = await agent.post('/settings/export').type('form').send({ csrf_token: csrf }).expect(422)
    expect(again.text).toContain('once a week')
    expect(await db()('archives').where({ user_id: me.userId })).toHaveLength(1)
    const zip = await agent
      .get(`/settings/exports/archives/${archive.id}`)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => cb(null, Buffer.concat(chunks)))
      })
      .expect(200)
    const files = await unzip(zip.body as Buffer)
    const outbox = JSON.parse(files.get('outbox.json')!.toString())
    expect(outbox).toMatchObject({ type: 'OrderedCollection', totalItems: 2 })
    const create = outbox.orderedItems.find((i: { object: { id: string } }) =>
      i.object.id.endsWith(`/statuses/${mine}`),
    )
    expect(create.type).toBe('Create')
    const url = create.object.attachment[0].url as string
    expect(url).toMatch(/^media_attachments\/files\//)
    expect(files.get(url)).toBeDefined()
    expect(JSON.parse(files.get('actor.json')!.toString())).toMatchObject({
      type: 'Person',
      preferredUsername: 'archivist',
      outbox: 'outbox.json',
    })
    const theirUri = `${stack.url}/users/${other.username}/statuses/${theirs}`
    expect(JSON.parse(files.get('likes.json')!.toString()).orderedItems).toEqual([theirUri])
    expect(JSON.parse(files.get('bookmarks.json')!.toString()).orderedItems).toEqual([theirUri])
    // Someone else cannot download it.
    const stranger = await signedIn(other as never)
    await stranger.get(`/settings/exports/archives/${archive.id}`).expect(404)
  })
})

describe('deletion', () => {
  it('with two-factor sign-in on, the password alone is not enough: a code is asked, then used up', async () => {
    const me = await signUp(stack, { username: 'guarded' })
    const agent = await signedIn(me as never)
    // Two-factor sign-in as enrolment leaves it (domain/two_factor.ts): a secret, on, no step used yet.
    const secret = new Secret({ size: 20 })
    await db()('users')
      .where({ id: me.userId })
      .update({ otp_secret: secret.base32, otp_enabled_at: new Date(), otp_backup_codes: [] })
    const csrf = await tokenOf(agent, '/settings/delete')
    expect((await agent.get('/settings/delete').expect(200)).text).toContain('name="code"')
    const password = (me as never as { password: string }).password
    for (const code of [undefined, '000000'])
      expect(
        (
          await agent
            .post('/settings/delete')
            .type('form')
            .send({ password, csrf_token: csrf, ...(code ? { code } : {}) })
            .expect(422)
        ).text,
      ).toContain('The two-factor code is not right.')
    expect(await db()('accounts').where({ id: me.id }).first()).toMatchObject({ deleted_at: null })
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret }).generate()
    await agent.post('/settings/delete').type('form').send({ password, code, csrf_token: csrf }).expect(200)
    expect((await db()('accounts').where({ id: me.id }).first()).deleted_at).not.toBeNull()
  })

  it('a wrong password or a missing CSRF token changes nothing; the password deletes, and the username stays taken', async () => {
    const me = await signUp(stack, { username: 'leaver' })
    const friend = await signUp(stack)
    await me.post(`/api/v1/accounts/${friend.id}/follow`).expect(200)
    await friend.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    await post(me, 'goodbye world')
    const agent = await signedIn(me as never)
    const csrf = await tokenOf(agent, '/settings/delete')
    await agent
      .post('/settings/delete')
      .type('form')
      .send({ password: (me as never as { password: string }).password })
      .expect(403)
    const wrong = await agent
      .post('/settings/delete')
      .type('form')
      .send({ password: 'wrong', csrf_token: csrf })
      .expect(422)
    expect(wrong.text).toContain('The password is not right.')
    expect(await db()('accounts').where({ id: me.id }).first()).toMatchObject({
      suspended_at: null,
      deleted_at: null,
    })
    await me.get('/api/v1/accounts/verify_credentials').expect(200)

    await agent
      .post('/settings/delete')
      .type('form')
      .send({ password: (me as never as { password: string }).password, csrf_token: csrf })
      .expect(200)
    // At once: suspended, its token refused.
    await me.get('/api/v1/accounts/verify_credentials').expect(401)
    await stack.drain()
    const row = await db()('accounts').where({ id: me.id }).first()
    expect(row).toMatchObject({
      username: 'leaver',
      statuses_count: 0,
      followers_count: 0,
      following_count: 0,
    })
    expect(row.suspended_at).not.toBeNull()
    expect(row.deleted_at).not.toBeNull()
    expect(await db()('users').where({ account_id: me.id }).first()).toBeUndefined()
    expect(await db()('statuses').where({ account_id: me.id })).toEqual([])
    expect(await db()('follows').where({ account_id: me.id }).orWhere({ target_account_id: me.id })).toEqual(
      [],
    )
    expect(await db()('accounts').where({ id: friend.id }).first()).toMatchObject({
      followers_count: 0,
      following_count: 0,
    })
    // The username cannot be taken again.
    const mod = await signUp(stack)
    await db()('users').where({ id: mod.userId }).update({ role: 'admin' })
    const invite = (await mod.post('/api/v1/invites', {}).expect(200)).body
    const app = await stack.appToken('read write')
    const res = await request(stack.url)
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send({
        username: 'leaver',
        email: 'new@example.test',
        password: 'a long password',
        agreement: true,
        invite_code: invite.code,
      })
      .expect(422)
    expect(res.body.details.username[0].error).toBe('ERR_TAKEN')
  })
})
