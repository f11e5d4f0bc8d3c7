import { isBlurhashValid } from 'blurhash'
import sharp from 'sharp'
import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { PNG, post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(() => stack.stop())

const account = async (id: string) => (await alice.get(`/api/v1/statuses/${id}`).expect(200)).body

describe('POST /api/v1/statuses', () => {
  it('shows the posting app to the author only, as Mastodon (application on one’s own statuses)', async () => {
    const id = await post(alice, 'posted with an app')
    // stack.userToken registers the app 'Roost tests', without a website.
    const own = (await alice.get(`/api/v1/statuses/${id}`).expect(200)).body
    expect(own.application).toEqual({ name: 'Roost tests', website: null })
    const posted = (await alice.post('/api/v1/statuses', { status: 'again' }).expect(200)).body
    expect(posted.application).toEqual({ name: 'Roost tests', website: null })
    expect((await bob.get(`/api/v1/statuses/${id}`).expect(200)).body.application).toBeNull()
    expect((await stack.api().get(`/api/v1/statuses/${id}`).expect(200)).body.application).toBeNull()
  })

  it('answers with the status exactly as reading it back shows it (the answer is rendered from what the request knows)', async () => {
    const media = await alice
      .post('/api/v2/media')
      .attach('file', PNG, 'c.png')
      .expect((r) => {
        if (r.status !== 200 && r.status !== 202) throw new Error(`media: ${r.status}`)
      })
    const other = await alice.post('/api/v1/media').attach('file', PNG, 'd.png').expect(200)
    const body = {
      status: '@bob #Fresh and #answers with two pictures',
      media_ids: [other.body.id, media.body.id],
      spoiler_text: 'cw',
      language: 'en',
    }
    const posted = (await alice.post('/api/v1/statuses', body).expect(200)).body
    const read = (await alice.get(`/api/v1/statuses/${posted.id}`).expect(200)).body
    expect(posted).toEqual(read)
    const poll = (
      await alice
        .post('/api/v1/statuses', { status: 'a poll', poll: { options: ['a', 'b'], expires_in: 3600 } })
        .expect(200)
    ).body
    expect(poll).toEqual((await alice.get(`/api/v1/statuses/${poll.id}`).expect(200)).body)
    const reply = (
      await alice.post('/api/v1/statuses', { status: 'a reply', in_reply_to_id: posted.id }).expect(200)
    ).body
    expect(reply).toEqual((await alice.get(`/api/v1/statuses/${reply.id}`).expect(200)).body)
  })

  it('creates a status with mentions, tags and a content warning, and counts it', async () => {
    const res = await alice
      .post('/api/v1/statuses', {
        status: 'Hello @bob and @nobody #Roost',
        spoiler_text: 'cw',
        language: 'en',
      })
      .expect(200)
    expect(res.body).toMatchObject({
      visibility: 'public',
      spoiler_text: 'cw',
      sensitive: true,
      language: 'en',
      in_reply_to_id: null,
      reblog: null,
      account: { id: alice.id, username: 'alice' },
      mentions: [{ id: bob.id, username: 'bob', acct: 'bob' }],
      tags: [{ name: 'roost' }],
    })
    expect(res.body.content).toContain('class="u-url mention">@<span>bob</span>')
    expect(res.body.content).toContain('@nobody')
    expect(res.body.url).toBe(`${stack.url}/@alice/${res.body.id}`)
    const me = (await alice.get(`/api/v1/statuses/${res.body.id}`).expect(200)).body.account
    expect(me.statuses_count).toBeGreaterThanOrEqual(1)
    expect(me.last_status_at).toBe(new Date().toISOString().slice(0, 10))
  })

  /**
   * The statements the accounts service runs for a post with one mention (docs/performance.md, "Write path"): the
   * user, BEGIN, the mentioned account, the status with its conversation, mention, author's counter and
   * `status.created` outbox row (one statement of data-modifying CTEs), COMMIT, and the viewer's filters for the
   * answer. 7 when the outbox row was a statement of its own.
   */
  it('posts a status with one mention in at most 6 statements', async () => {
    await post(alice, 'warm up') // the token's first use, and the pool's first statements
    const statements: string[] = []
    const count = (q: { sql: string }) => statements.push(q.sql)
    stack.accounts.ctx.db.on('query', count)
    try {
      await post(alice, 'hello @bob')
    } finally {
      stack.accounts.ctx.db.off('query', count)
    }
    if (statements.length > 6) throw new Error(`${statements.length} statements:\n${statements.join('\n')}`)
  })

  it('refuses blank text without media and text over 500 characters', async () => {
    const blank = await alice.post('/api/v1/statuses', { status: '  ' }).expect(422)
    expect(blank.body).toEqual({ error: "Validation failed: Text can't be blank" })
    const long = await alice.post('/api/v1/statuses', { status: 'x'.repeat(501) }).expect(422)
    expect(long.body.error).toMatch(/character limit of 500/)
    await alice.post('/api/v1/statuses', { status: 'x'.repeat(500) }).expect(200)
    const visibility = await alice
      .post('/api/v1/statuses', { status: 'x', visibility: 'everyone' })
      .expect(422)
    expect(visibility.body.error).toMatch(/Visibility/)
  })

  it('replies, and refuses a reply to an unknown post with 404', async () => {
    const parent = await post(bob, 'parent')
    const reply = await alice
      .post('/api/v1/statuses', { status: 'reply', in_reply_to_id: parent })
      .expect(200)
    expect(reply.body).toMatchObject({ in_reply_to_id: parent, in_reply_to_account_id: bob.id })
    expect((await account(parent)).replies_count).toBe(1)
    const missing = await alice.post('/api/v1/statuses', { status: 'r', in_reply_to_id: '12345' }).expect(404)
    expect(missing.body.error).toBe('The post you are trying to reply to does not appear to exist.')
  })

  it('attaches uploaded images (v1 and v2) and refuses media that is not yours', async () => {
    const v2 = await alice.post('/api/v2/media').attach('file', PNG, 'a.png').field('description', 'dot')
    expect(v2.status).toBe(200)
    expect(v2.body).toMatchObject({ type: 'image', description: 'dot' })
    // Served re-encoded (docs/media.md, "Images"): a PNG still, with the same pixels.
    const image = await stack.api().get(new URL(v2.body.url).pathname).expect(200)
    expect((await sharp(image.body).metadata()).format).toBe('png')
    const pixels = (data: Buffer) => sharp(data).ensureAlpha().raw().toBuffer()
    expect((await pixels(image.body)).equals(await pixels(PNG))).toBe(true)
    const v1 = await alice.post('/api/v1/media').attach('file', PNG, 'b.png').expect(200)

    const theirs = await bob.post('/api/v1/statuses', { media_ids: [v1.body.id] }).expect(422)
    expect(theirs.body.error).toBe(`Validation failed: Media ${v1.body.id} not found`)
    const res = await alice.post('/api/v1/statuses', { media_ids: [v2.body.id, v1.body.id] }).expect(200)
    expect(res.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([v2.body.id, v1.body.id])
    // Attached media cannot be attached again.
    await alice.post('/api/v1/statuses', { media_ids: [v1.body.id] }).expect(422)

    const notImage = await alice.post('/api/v2/media').attach('file', Buffer.from('hello'), 'a.png')
    expect(notImage.status).toBe(422)
    const noFile = await alice.post('/api/v2/media').send({ description: 'x' }).expect(400)
    expect(noFile.body.error).toMatch(/file/)
  })

  it('computes meta (original, small), blurhash and a small preview on upload, as Mastodon; undecodable images are a 422', async () => {
    // A 1200×800 JPEG with a gradient-free two-tone picture (so the blurhash has something to say).
    const jpeg = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3366cc' } })
      .composite([
        {
          input: await sharp({ create: { width: 600, height: 400, channels: 3, background: '#ffcc00' } })
            .png()
            .toBuffer(),
          top: 0,
          left: 0,
        },
      ])
      .jpeg()
      .toBuffer()
    const up = (await alice.post('/api/v2/media').attach('file', jpeg, 'big.jpg').expect(200)).body
    expect(up.meta.original).toEqual({ width: 1200, height: 800, size: '1200x800', aspect: 1.5 })
    const small = up.meta.small
    expect(small.width * small.height).toBeLessThanOrEqual(230_400)
    expect(small.width * small.height).toBeGreaterThan(220_000)
    expect(small.size).toBe(`${small.width}x${small.height}`)
    expect(small.aspect).toBeCloseTo(1.5, 2)
    expect(typeof up.blurhash).toBe('string')
    expect(isBlurhashValid(up.blurhash)).toEqual({ result: true })
    expect(up.preview_url).not.toBe(up.url)
    const preview = await stack.api().get(new URL(up.preview_url).pathname).buffer(true).expect(200)
    expect(preview.headers['content-type']).toMatch(/^image\/jpeg/)
    const previewMeta = await sharp(preview.body as Buffer).metadata()
    expect([previewMeta.width, previewMeta.height]).toEqual([small.width, small.height])
    // Read back, the attachment is the same.
    expect((await alice.get(`/api/v1/media/${up.id}`).expect(200)).body).toEqual(up)

    // A small PNG is never enlarged: small equals original.
    const png = await sharp({ create: { width: 30, height: 20, channels: 4, background: '#ff000080' } })
      .png()
      .toBuffer()
    const tiny = (await alice.post('/api/v1/media').attach('file', png, 't.png').expect(200)).body
    expect(tiny.meta).toEqual({
      original: { width: 30, height: 20, size: '30x20', aspect: 1.5 },
      small: { width: 30, height: 20, size: '30x20', aspect: 1.5 },
    })
    expect(isBlurhashValid(tiny.blurhash).result).toBe(true)

    // PNG's signature followed by garbage: an image by its first bytes that does not decode.
    const broken = Buffer.concat([png.subarray(0, 16), Buffer.alloc(64, 7)])
    const bad = await alice.post('/api/v2/media').attach('file', broken, 'b.png')
    expect(bad.status).toBe(422)
    expect(bad.body).toEqual({ error: 'File type of uploaded media could not be verified' })
  })

  it('sets alt text with PUT and discards an unposted upload with DELETE, only on your own unattached media', async () => {
    const upload = (await alice.post('/api/v2/media').attach('file', PNG, 'c.png').expect(200)).body
    const path = `/api/v1/media/${upload.id}`
    const alt = await stack
      .api()
      .put(path)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ description: 'a red dot' })
    expect(alt.status).toBe(200)
    expect(alt.body).toMatchObject({ id: upload.id, description: 'a red dot' })
    expect((await alice.get(path).expect(200)).body.description).toBe('a red dot')
    const tooLong = await stack
      .api()
      .put(path)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ description: 'x'.repeat(1501) })
      .expect(422)
    expect(tooLong.body.error).toMatch(/too long/)
    await stack
      .api()
      .put(path)
      .set('Authorization', `Bearer ${bob.token}`)
      .send({ description: 'mine now' })
      .expect(404)
    await bob.delete(path).expect(404)

    const image = new URL(upload.url).pathname
    const preview = new URL(upload.preview_url).pathname
    await stack.api().get(image).expect(200)
    await stack.api().get(preview).expect(200)
    expect((await alice.delete(path).expect(200)).body).toEqual({})
    await alice.get(path).expect(404)
    await stack.api().get(image).expect(404)
    await stack.api().get(preview).expect(404)

    const posted = (await alice.post('/api/v1/media').attach('file', PNG, 'd.png').expect(200)).body
    await alice.post('/api/v1/statuses', { media_ids: [posted.id] }).expect(200)
    await alice.delete(`/api/v1/media/${posted.id}`).expect(404)
  })
})

describe('GET and DELETE /api/v1/statuses/:id', () => {
  it('applies visibility: private to followers, direct to the mentioned', async () => {
    const carol = await signUp(stack)
    const priv = await post(alice, { status: 'followers only', visibility: 'private' })
    const direct = await post(alice, { status: `psst @${carol.username}`, visibility: 'direct' })
    await stack.api().get(`/api/v1/statuses/${priv}`).expect(404)
    await bob.get(`/api/v1/statuses/${priv}`).expect(404)
    await bob.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
    await bob.get(`/api/v1/statuses/${priv}`).expect(200)
    await bob.get(`/api/v1/statuses/${direct}`).expect(404)
    await carol.get(`/api/v1/statuses/${direct}`).expect(200)
    const unlisted = await post(alice, { status: 'quiet', visibility: 'unlisted' })
    await stack.api().get(`/api/v1/statuses/${unlisted}`).expect(200)
  })

  it('deletes your own status, answering with its text, and keeps the counter', async () => {
    const before = (await account(await post(alice, 'counted'))).account.statuses_count
    const id = await post(alice, 'to delete')
    await bob.delete(`/api/v1/statuses/${id}`).expect(403)
    const res = await alice.delete(`/api/v1/statuses/${id}`).expect(200)
    expect(res.body).toMatchObject({ id, text: 'to delete' })
    await alice.get(`/api/v1/statuses/${id}`).expect(404)
    const after = (await account(await post(alice, 'again'))).account.statuses_count
    expect(after).toBe(before + 1)
  })
})

describe('favourite, reblog, pin', () => {
  it('favourites and unfavourites idempotently', async () => {
    const id = await post(bob, 'like me')
    await alice.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    const again = await alice.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    expect(again.body).toMatchObject({ favourited: true, favourites_count: 1 })
    const un = await alice.post(`/api/v1/statuses/${id}/unfavourite`).expect(200)
    expect(un.body).toMatchObject({ favourited: false, favourites_count: 0 })
  })

  it('reblogs once, refuses private posts, and unreblogs', async () => {
    const id = await post(bob, 'boost me')
    const res = await alice.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    expect(res.body.reblog).toMatchObject({ id, reblogged: true, reblogs_count: 1 })
    const again = await alice.post(`/api/v1/statuses/${res.body.id}/reblog`).expect(200)
    expect(again.body.id).toBe(res.body.id)
    const un = await alice.post(`/api/v1/statuses/${id}/unreblog`).expect(200)
    expect(un.body).toMatchObject({ id, reblogged: false, reblogs_count: 0 })
    await alice.get(`/api/v1/statuses/${res.body.id}`).expect(404)

    const priv = await post(bob, { status: 'mine', visibility: 'private' })
    await bob.post(`/api/v1/accounts/${alice.id}/follow`)
    await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
    const refused = await alice.post(`/api/v1/statuses/${priv}/reblog`).expect(403)
    expect(refused.body).toEqual({ error: 'This action is not allowed' })
  })

  it('pins own public and unlisted posts only', async () => {
    const id = await post(alice, 'pin me')
    const res = await alice.post(`/api/v1/statuses/${id}/pin`).expect(200)
    expect(res.body.pinned).toBe(true)
    const theirs = await post(bob, 'not yours')
    expect((await alice.post(`/api/v1/statuses/${theirs}/pin`).expect(422)).body.error).toMatch(
      /Someone else/,
    )
    const priv = await post(alice, { status: 'secret', visibility: 'private' })
    await alice.post(`/api/v1/statuses/${priv}/pin`).expect(422)
    const un = await alice.post(`/api/v1/statuses/${id}/unpin`).expect(200)
    expect(un.body.pinned).toBe(false)

    const five = [
      await post(alice, '1'),
      await post(alice, '2'),
      await post(alice, '3'),
      await post(alice, '4'),
    ]
    for (const pinned of [id, ...five]) await alice.post(`/api/v1/statuses/${pinned}/pin`).expect(200)
    const sixth = await alice.post(`/api/v1/statuses/${await post(alice, '6')}/pin`).expect(422)
    expect(sixth.body.error).toBe('Validation failed: You have already pinned the maximum number of posts')
    await alice.post(`/api/v1/statuses/${id}/pin`).expect(200)
  })
})
