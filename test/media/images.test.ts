import sharp from 'sharp'
import { main } from '../../apps/accounts/src/cli'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { ARTIST, colourAt, download, MAKE, phonePhoto, telltalesIn } from './fixtures'

/**
 * Images are re-encoded, never stored as uploaded (docs/media.md, "Images"): what a phone puts in a photo (EXIF
 * with GPS, camera and artist, XMP, IPTC, a comment) is gone from the original, its preview, the avatar and the
 * header, the colour profile stays, a rotated photo is stored upright, and sizes are Mastodon's. Focal points are
 * kept as `meta.focus` ("Focal points and descriptions"). The `media strip-metadata` command cleans files stored
 * before.
 */
let stack: Stack
let alice: TestUser
let photo: Buffer

beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  // 1600×1200 as stored, EXIF orientation 6 (turn 90° clockwise to show): 1200×1600 as shown.
  photo = await phonePhoto(1600, 1200, 6)
}, 120_000)
afterAll(() => stack?.stop())

const upload = (file: Buffer, fields: Record<string, string> = {}, name = 'photo.jpg') => {
  const req = alice.post('/api/v2/media')
  for (const [k, v] of Object.entries(fields)) req.field(k, v)
  return req.attach('file', file, { filename: name, contentType: 'image/jpeg' })
}

describe('the photo as uploaded holds what the test looks for', () => {
  it('EXIF with GPS, make and artist, XMP, IPTC, a comment, an ICC profile, orientation 6', async () => {
    const meta = await sharp(photo).metadata()
    expect(meta).toMatchObject({ width: 1600, height: 1200, orientation: 6 })
    expect(meta.exif && meta.xmp && meta.iptc && meta.icc).toBeTruthy()
    expect(telltalesIn(photo)).toEqual([ARTIST, MAKE, 'Shot at Jane home', 'GPS', 'WGS-84'])
  })
})

describe('attachments', () => {
  let entity: { id: string; url: string; preview_url: string; meta: Record<string, unknown> }

  it('the served original and preview carry no metadata but the colour profile, and the photo stands upright', async () => {
    entity = (await upload(photo).expect(200)).body
    expect(entity.meta).toMatchObject({
      original: { width: 1200, height: 1600 },
      small: { width: 415, height: 554 },
    })
    for (const [url, size] of [
      [entity.url, { width: 1200, height: 1600 }],
      [entity.preview_url, { width: 415, height: 554 }],
    ] as const) {
      expect(url).toMatch(new RegExp(`^${stack.url}/media/`))
      const served = await download(url)
      const meta = await sharp(served).metadata()
      expect(meta).toMatchObject({ format: 'jpeg', ...size })
      expect(meta.exif).toBeUndefined()
      expect(meta.xmp).toBeUndefined()
      expect(meta.iptc).toBeUndefined()
      expect(meta.orientation).toBeUndefined()
      expect(meta.icc).toBeDefined()
      expect(telltalesIn(served)).toEqual([])
      // The blue corner, stored top left, shows top right once turned.
      expect(await colourAt(served, meta.width - 5, 5)).toBe('blue')
      expect(await colourAt(served, 5, 5)).toBe('red')
    }
    // The ICC profile is the one the phone wrote (Display P3), not replaced by sRGB.
    const icc = (await sharp(await download(entity.url)).metadata()).icc!
    expect(icc.equals((await sharp(photo).metadata()).icc!)).toBe(true)
  })

  it('scales an original over 8,294,400 pixels down to fit, keeping its shape', async () => {
    const big = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer()
    const body = (await upload(big).expect(200)).body
    expect(body.meta.original).toMatchObject({ width: 2880, height: 2880 })
    const meta = await sharp(await download(body.url)).metadata()
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(8_294_400)
    expect([meta.width, meta.height]).toEqual([2880, 2880])
  })

  it('keeps PNG as PNG and WebP as WebP, and an animated WebP animated', async () => {
    const png = await sharp({ create: { width: 30, height: 20, channels: 4, background: '#00ff0080' } })
      .withExif({ IFD0: { Artist: ARTIST } })
      .png()
      .toBuffer()
    expect(png.includes(ARTIST)).toBe(true)
    const pngEntity = (await upload(png, {}, 'a.png').expect(200)).body
    expect(pngEntity.url).toMatch(/\.png$/)
    const servedPng = await download(pngEntity.url)
    expect((await sharp(servedPng).metadata()).format).toBe('png')
    expect(telltalesIn(servedPng)).toEqual([])

    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((c) =>
        sharp({ create: { width: 20, height: 20, channels: 3, background: c } })
          .png()
          .toBuffer(),
      ),
    )
    const webp = await sharp(frames, { join: { animated: true } })
      .webp({ loop: 0, delay: 100 })
      .withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><a>${ARTIST}</a></x:xmpmeta>`)
      .toBuffer()
    const webpEntity = (await upload(webp, {}, 'a.webp').expect(200)).body
    expect(webpEntity.url).toMatch(/\.webp$/)
    const servedWebp = await download(webpEntity.url)
    expect(await sharp(servedWebp, { animated: true }).metadata()).toMatchObject({ format: 'webp', pages: 3 })
    expect(telltalesIn(servedWebp)).toEqual([])
  })

  it('refuses an image of 16 MB or more with 422', async () => {
    const small = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer()
    const huge = Buffer.concat([small, Buffer.alloc(16 * 1024 * 1024 - small.length + 1)])
    const res = await upload(huge).expect(422)
    expect(res.body).toEqual({ error: 'Validation failed: File file size must be less than 16 MB' })
  })

  it('keeps focus as meta.focus on upload (v1 and v2) and PUT; reads it loosely as Mastodon, within -1..1', async () => {
    const v2 = (await upload(photo, { focus: '0.5,-0.25', description: 'a red wall' }).expect(200)).body
    expect(v2.meta.focus).toEqual({ x: 0.5, y: -0.25 })
    expect(v2.description).toBe('a red wall')
    const v1 = (
      await alice
        .post('/api/v1/media')
        .field('focus', '-1,1')
        .attach('file', photo, { filename: 'p.jpg', contentType: 'image/jpeg' })
        .expect(200)
    ).body
    expect(v1.meta.focus).toEqual({ x: -1, y: 1 })

    const put = (focus: string) =>
      stack
        .api()
        .put(`/api/v1/media/${v2.id}`)
        .set('Authorization', `Bearer ${alice.token}`)
        .send({ focus })
        .expect(200)
    expect((await put('0.1,0.2')).body.meta).toMatchObject({
      focus: { x: 0.1, y: 0.2 },
      original: { width: 1200, height: 1600 },
    })
    // Mastodon's `to_f`: a word is 0; beyond the edge is held at the edge; blank leaves it.
    expect((await put('abc,0.3')).body.meta.focus).toEqual({ x: 0, y: 0.3 })
    expect((await put('2,-7')).body.meta.focus).toEqual({ x: 1, y: -1 })
    expect((await put('')).body.meta.focus).toEqual({ x: 1, y: -1 })
    // The GET shows it too, and so does the status once posted.
    expect((await alice.get(`/api/v1/media/${v2.id}`).expect(200)).body.meta.focus).toEqual({ x: 1, y: -1 })
    const status = (await alice.post('/api/v1/statuses', { status: 'wall', media_ids: [v2.id] }).expect(200))
      .body
    expect(status.media_attachments[0].meta.focus).toEqual({ x: 1, y: -1 })

    // An edit that moves the focal point is an edit; the description limit holds there too.
    const edited = await stack
      .api()
      .put(`/api/v1/statuses/${status.id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ status: 'wall', media_ids: [v2.id], media_attributes: [{ id: v2.id, focus: '0.3,0.4' }] })
      .expect(200)
    expect(edited.body.media_attachments[0].meta.focus).toEqual({ x: 0.3, y: 0.4 })
    expect(edited.body.edited_at).not.toBeNull()
    await stack
      .api()
      .put(`/api/v1/statuses/${status.id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({
        status: 'wall',
        media_ids: [v2.id],
        media_attributes: [{ id: v2.id, description: 'x'.repeat(1501) }],
      })
      .expect(422)
  })

  it('refuses a description over 1,500 characters with 422 on upload and PUT; 1,500 is fine', async () => {
    const res = await upload(photo, { description: 'é'.repeat(1501) }).expect(422)
    expect(res.body.error).toMatch(/^Validation failed/)
    const ok = (await upload(photo, { description: 'é'.repeat(1500) }).expect(200)).body
    await stack
      .api()
      .put(`/api/v1/media/${ok.id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ description: 'x'.repeat(1501) })
      .expect(422)
  })
})

describe('avatars and headers', () => {
  it('are cropped to 400×400 and 1500×500 and carry no metadata', async () => {
    const res = await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${alice.token}`)
      .attach('avatar', photo, { filename: 'avatar.jpg', contentType: 'image/jpeg' })
      .attach('header', photo, { filename: 'header.jpg', contentType: 'image/jpeg' })
      .expect(200)
    for (const [url, width, height] of [
      [res.body.avatar, 400, 400],
      [res.body.header, 1500, 500],
    ] as const) {
      expect(url).toMatch(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.jpg$`))
      const served = await download(url)
      const meta = await sharp(served).metadata()
      expect(meta).toMatchObject({ format: 'jpeg', width, height })
      expect(meta.exif ?? meta.xmp ?? meta.iptc).toBeUndefined()
      expect(meta.icc).toBeDefined()
      expect(telltalesIn(served)).toEqual([])
    }
  })
})

describe('npm run roost -- media strip-metadata', () => {
  it('re-encodes files stored before, under new names, updates the rows, removes the old files, with a progress line', async () => {
    const { media, db } = stack.accounts.ctx
    // As stored before re-encoding existed: the upload's bytes, an attachment row and an avatar pointing at them.
    const old = `${'a'.repeat(31)}1.jpg`
    const oldAvatar = `${'b'.repeat(31)}2.jpg`
    await media.put(old, photo, 'image/jpeg')
    await media.put(oldAvatar, photo, 'image/jpeg')
    const [row] = await db('media_attachments')
      .insert({
        account_id: alice.id,
        file: old,
        content_type: 'image/jpeg',
        meta: JSON.stringify({ focus: { x: 0.2, y: 0.1 } }),
      })
      .returning('*')
    await db('accounts').where({ id: alice.id }).update({ avatar_file: oldAvatar })
    const total =
      Number((await db('media_attachments').whereNot({ file: '' }).count({ n: '*' }).first())!.n) + 2

    const out: string[] = []
    const err: string[] = []
    const log = jest.spyOn(console, 'log').mockImplementation((m: unknown) => void out.push(String(m)))
    const write = jest
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (err.push(String(chunk)), true))
    let code: number
    try {
      code = await main(['media', 'strip-metadata'], stack.env)
    } finally {
      log.mockRestore()
      write.mockRestore()
    }
    expect(code).toBe(0)
    expect(err.join('')).toContain(`strip-metadata: 0/${total} images`)
    expect(err.join('')).toContain(
      `strip-metadata: ${total}/${total} images (${total} re-encoded, 0 missing, 0 failed)`,
    )
    expect(out.join('\n')).toBe(`OK ${total}/${total} images (${total} re-encoded, 0 missing, 0 failed)`)

    const after = await db('media_attachments').where({ id: row.id }).first()
    expect(after.file).not.toBe(old)
    expect(after.preview_file).toMatch(/-small\.jpg$/)
    expect(after.meta).toMatchObject({ focus: { x: 0.2, y: 0.1 }, original: { width: 1200, height: 1600 } })
    expect(await media.read(old)).toBeUndefined()
    expect(await media.read(oldAvatar)).toBeUndefined()
    const entity = (await alice.get(`/api/v1/media/${row.id}`).expect(200)).body
    for (const url of [entity.url, entity.preview_url]) {
      const served = await download(url)
      expect(telltalesIn(served)).toEqual([])
      expect((await sharp(served).metadata()).exif).toBeUndefined()
    }
    const account = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body
    expect(account.avatar).not.toContain(oldAvatar)
    const avatar = await download(account.avatar)
    expect(telltalesIn(avatar)).toEqual([])
    expect(await sharp(avatar).metadata()).toMatchObject({ width: 400, height: 400 })
  })

  it('an unknown media command is a usage error (exit 2)', async () => {
    const err = jest.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      expect(await main(['media', 'nothing'], stack.env)).toBe(2)
    } finally {
      err.mockRestore()
    }
  })
})
