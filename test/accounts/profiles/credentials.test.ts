import sharp from 'sharp'
import { deflateSync } from 'node:zlib'
import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

/** A real 1×1 PNG, built here so the test needs no fixture file. */
function tinyPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (buf: Buffer) => {
    let c = 0xffffffff
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const sum = Buffer.alloc(4)
    sum.writeUInt32BE(crc(body))
    return Buffer.concat([length, body, sum])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(1, 0)
  header.writeUInt32BE(1, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

/** A locked user (as Mastodon's spec fabricates it) and a read+write token. */
async function lockedUser() {
  const user = await stack.createUser()
  await stack.accounts.ctx.db('accounts').where({ id: user.accountId }).update({ locked: true })
  return { user, token: await stack.userToken('read:accounts write:accounts', user) }
}

describe('GET /api/v1/accounts/verify_credentials', () => {
  it('answers the CredentialAccount with source and role', async () => {
    const { user, token } = await lockedUser()
    const res = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    expect(res.body).toMatchObject({
      id: user.accountId,
      username: user.username,
      locked: true,
      source: {
        privacy: 'public',
        sensitive: false,
        language: null,
        note: '',
        fields: [],
        follow_requests_count: 0,
        hide_collections: false,
        discoverable: true,
        indexable: false,
        attribution_domains: [],
        quote_policy: 'public',
      },
      role: { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
    })
  })

  it('works with the profile scope alone', async () => {
    const { user } = await lockedUser()
    const token = await stack.userToken('profile', user)
    const res = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    expect(res.body.locked).toBe(true)
  })

  it('answers 403 for a write-only token, 422 for an app token, 401 without a token', async () => {
    const { user } = await lockedUser()
    const writeOnly = await stack.userToken('write write:accounts', user)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(writeOnly)).expect(403)
    const app = await stack.appToken('read')
    const res = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(app)).expect(422)
    expect(res.body.error).toBe('This method requires an authenticated user')
    await stack.api().get('/api/v1/accounts/verify_credentials').expect(401)
  })

  it('shows an admin their role', async () => {
    const admin = await stack.createUser({ role: 'admin' })
    const token = await stack.userToken('read', admin)
    const res = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    expect(res.body.role).toMatchObject({ name: 'Admin', highlighted: true })
    expect(res.body.roles).toEqual([{ id: res.body.role.id, name: 'Admin', color: '' }])
  })
})

describe('PATCH /api/v1/accounts/update_credentials', () => {
  const patch = (token: string) => stack.api().patch('/api/v1/accounts/update_credentials').set(bearer(token))

  it('updates the display name with an empty source (JSON)', async () => {
    const { token } = await lockedUser()
    const res = await patch(token).send({ display_name: 'Alice', source: {} }).expect(200)
    expect(res.body.display_name).toBe('Alice')
    expect(res.body.source.privacy).toBe('public')
  })

  it('answers 403 for a read-only token, and 404 for PUT and POST', async () => {
    const { user } = await lockedUser()
    const readOnly = await stack.userToken('read read:accounts', user)
    await patch(readOnly).send({ display_name: 'x' }).expect(403)
    await stack.api().put('/api/v1/accounts/update_credentials').set(bearer(readOnly)).expect(404)
    await stack.api().post('/api/v1/accounts/update_credentials').set(bearer(readOnly)).expect(404)
  })

  it('refuses a note twice the limit with ERR_TOO_LONG and keeps the old note', async () => {
    const { user, token } = await lockedUser()
    const res = await patch(token)
      .send({ note: 'a'.repeat(1000) })
      .expect(422)
    expect(res.body.error).toMatch(/Validation failed/)
    expect(res.body.details.note[0]).toEqual({
      error: 'ERR_TOO_LONG',
      description: expect.stringMatching(/too long/),
    })
    const row = await stack.accounts.ctx.db('accounts').where({ id: user.accountId }).first()
    expect(row.note).toBe('')
  })

  it.each([
    ['display_name', { display_name: 'd'.repeat(31) }, 'ERR_TOO_LONG'],
    ['display_name', { display_name: { a: 1 } }, 'ERR_INVALID'],
    ['note', { note: ['x'] }, 'ERR_INVALID'],
    ['locked', { locked: { yes: true } }, 'ERR_INVALID'],
    ['fields', { fields_attributes: 'nope' }, 'ERR_INVALID'],
    ['fields', { fields_attributes: [{ name: 'n'.repeat(256), value: 'v' }] }, 'ERR_TOO_LONG'],
    [
      'fields',
      { fields_attributes: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: 'v' })) },
      'ERR_TOO_LONG',
    ],
  ])('refuses a bad %s (%#)', async (param, body, kind) => {
    const { token } = await lockedUser()
    const res = await patch(token).send(body).expect(422)
    expect(res.body.details[param][0].error).toBe(kind)
  })

  it('ignores an invalid source[privacy] (200, unchanged)', async () => {
    const { token } = await lockedUser()
    const res = await patch(token)
      .send({ source: { privacy: 'everyone', language: 'not a language' } })
      .expect(200)
    expect(res.body.source).toMatchObject({ privacy: 'public', language: null })
  })

  it('updates everything from a masto-style multipart form, with avatar and header images', async () => {
    const { user, token } = await lockedUser()
    const png = tinyPng()
    const res = await patch(token)
      .field('display_name', 'Multi Part')
      .field('note', 'Hello\n\n<world>')
      .field('locked', 'false')
      .field('bot', 'true')
      .field('discoverable', 'true')
      .field('indexable', 'true')
      .field('hide_collections', '1')
      .field('fields_attributes[0][name]', 'Site')
      .field('fields_attributes[0][value]', 'https://example.test')
      .field('fields_attributes[1][name]', '')
      .field('fields_attributes[1][value]', '')
      .field('fields_attributes[2][name]', 'Pronouns')
      .field('fields_attributes[2][value]', 'they/them')
      .field('source[privacy]', 'unlisted')
      .field('source[sensitive]', 'true')
      .field('source[language]', 'de')
      .attach('avatar', png, { filename: 'avatar.png', contentType: 'image/png' })
      .attach('header', png, { filename: 'header.png', contentType: 'image/png' })
      .expect(200)
    expect(res.body).toMatchObject({
      display_name: 'Multi Part',
      note: '<p>Hello</p><p>&lt;world&gt;</p>',
      locked: false,
      bot: true,
      discoverable: true,
      indexable: true,
      hide_collections: true,
      fields: [
        {
          name: 'Site',
          value:
            '<a href="https://example.test" target="_blank" rel="nofollow noopener me" translate="no">' +
            '<span class="invisible">https://</span><span class="">example.test</span><span class="invisible"></span></a>',
          verified_at: null,
        },
        { name: 'Pronouns', value: 'they/them', verified_at: null },
      ],
      source: {
        privacy: 'unlisted',
        sensitive: true,
        language: 'de',
        note: 'Hello\n\n<world>',
        discoverable: true,
        indexable: true,
        fields: [
          { name: 'Site', value: 'https://example.test', verified_at: null },
          { name: 'Pronouns', value: 'they/them', verified_at: null },
        ],
      },
    })
    expect(res.body.avatar).toMatch(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.png$`))
    expect(res.body.header).toMatch(/\/media\/[0-9a-f]{32}\.png$/)
    expect(res.body.avatar_static).toBe(res.body.avatar)

    // The images are served back through the gateway, re-encoded to Mastodon's sizes (docs/media.md, "Images").
    const avatar = await stack.api().get(new URL(res.body.avatar).pathname).buffer(true).expect(200)
    expect(await sharp(avatar.body).metadata()).toMatchObject({ format: 'png', width: 400, height: 400 })

    // Others see the new profile too.
    const seen = await stack.api().get(`/api/v1/accounts/${user.accountId}`).expect(200)
    expect(seen.body).toMatchObject({ display_name: 'Multi Part', bot: true, avatar: res.body.avatar })
  })

  it('keeps absent settings, and a field keeps verified_at while its value is unchanged', async () => {
    const { user, token } = await lockedUser()
    await patch(token)
      .send({ fields_attributes: { '0': { name: 'Site', value: 'https://a.test' } } })
      .expect(200)
    await stack.accounts.ctx
      .db('accounts')
      .where({ id: user.accountId })
      .update({
        fields: JSON.stringify([
          { name: 'Site', value: 'https://a.test', verified_at: '2026-01-01T00:00:00.000Z' },
        ]),
      })
    const res = await patch(token)
      .send({
        fields_attributes: [
          { name: 'Site', value: 'https://a.test' },
          { name: 'New', value: 'x' },
        ],
      })
      .expect(200)
    expect(res.body.fields[0].verified_at).toBe('2026-01-01T00:00:00.000Z')
    expect(res.body.fields[1].verified_at).toBeNull()
    expect(res.body.locked).toBe(true) // not sent, so unchanged
  })

  it('refuses an upload that is not an image with 422', async () => {
    const { token } = await lockedUser()
    const res = await patch(token)
      .attach('avatar', Buffer.from('plain text, not an image'), {
        filename: 'a.png',
        contentType: 'image/png',
      })
      .expect(422)
    expect(res.body.error).toMatch(/Validation failed/)
  })

  it('answers malformed JSON with 400', async () => {
    const { token } = await lockedUser()
    const res = await patch(token).set('Content-Type', 'application/json').send('{"note":').expect(400)
    expect(typeof res.body.error).toBe('string')
  })

  it('answers 403 to a suspended user', async () => {
    const { user, token } = await lockedUser()
    await stack.accounts.ctx.db('accounts').where({ id: user.accountId }).update({ suspended_at: new Date() })
    const res = await patch(token).send({ note: 'x' })
    // Suspension revokes tokens in the admin flow; set directly here, requireUser still refuses.
    expect(res.status).toBe(403)
    expect(res.body.error).toBe('Your login is currently disabled')
  })
})
