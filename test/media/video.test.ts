// Video, audio and animated GIF uploads (docs/media.md, "Video, audio and GIFs"), driven by masto.js as an app
// drives Mastodon: v2 answers 202 with `url: null`, GET /api/v1/media/:id 206 while the accounts worker transcodes
// and 200 once done; the served files are what browsers play (ffprobe reads them).
import type { mastodon } from 'masto'
import { createRestAPIClient, MastoHttpError } from 'masto'
import sharp from 'sharp'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { animatedGif, download, generate, mp3, mp4, probeBuffer, webm } from './av-helpers'

let stack: Stack
let token: string
let api: mastodon.rest.Client
beforeAll(async () => {
  stack = await startStack()
  const user = await stack.createUser({ username: 'vera' })
  token = await stack.userToken('read write', user)
  api = createRestAPIClient({ url: stack.url, accessToken: token, timeout: 60_000 })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
})

const NOT_READY = 'Cannot attach files that have not finished processing. Try again in a moment!'
const FAILED = 'Error processing thumbnail for uploaded media'

const getMedia = (id: string) => stack.api().get(`/api/v1/media/${id}`).set(bearer(token))
const blob = (data: Buffer, type: string) => new Blob([new Uint8Array(data)], { type })

it('an MP4: 202 with no url, 206 while processed, posting it is 422, then 200 with a playable H.264 file and a preview', async () => {
  await stack.accountsWorker!.pause()
  const media = await api.v2.media.create({
    file: blob(await mp4(), 'video/mp4'),
    description: 'A test pattern',
    skipPolling: true,
  })
  expect(media).toMatchObject({ type: 'video', url: null, description: 'A test pattern' })
  const pending = await getMedia(media.id).expect(206)
  expect(pending.body).toMatchObject({ id: media.id, url: null })
  const early = await api.v1.statuses
    .create({ status: 'too soon', mediaIds: [media.id] })
    .catch((e: unknown) => e)
  expect(early).toBeInstanceOf(MastoHttpError)
  expect(early).toMatchObject({ statusCode: 422, message: NOT_READY })
  // A scheduled status is refused the same way.
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(token))
    .send({
      status: 'later',
      media_ids: [media.id],
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    })
    .expect(422, { error: NOT_READY })

  await stack.accountsWorker!.resume()
  await stack.drain(120_000)
  const done = (await getMedia(media.id).expect(200)).body
  expect(done).toMatchObject({
    type: 'video',
    url: expect.stringMatching(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.mp4$`)),
    preview_url: expect.stringMatching(new RegExp(`^${stack.url}/media/[0-9a-f]{32}-small\\.jpg$`)),
    blurhash: expect.any(String),
    meta: {
      length: '0:00:02.00',
      duration: 2,
      fps: 25,
      size: '320x240',
      width: 320,
      height: 240,
      aspect: 320 / 240,
      audio_encode: expect.stringMatching(/^aac/),
      audio_bitrate: '44100 Hz',
      audio_channels: 'mono',
      original: {
        width: 320,
        height: 240,
        frame_rate: '25/1',
        duration: expect.any(Number),
        bitrate: expect.any(Number),
      },
      small: { width: 320, height: 240, size: '320x240', aspect: 320 / 240 },
    },
  })
  const served = await probeBuffer(await download(done.url))
  expect(served.codecs).toEqual(['video:h264', 'audio:aac'])
  expect(served.duration).toBeCloseTo(2, 0)
  expect(await sharp(await download(done.preview_url)).metadata()).toMatchObject({
    format: 'jpeg',
    width: 320,
  })

  const status = await api.v1.statuses.create({ status: 'a video', mediaIds: [media.id] })
  expect(status.mediaAttachments[0]).toMatchObject({ id: media.id, type: 'video', url: done.url })
})

it('an MP3 (masto polls until it is ready): an MP3 file with its meta', async () => {
  const media = await api.v2.media.create({ file: blob(await mp3(), 'audio/mpeg') })
  expect(media).toMatchObject({ type: 'audio', url: expect.stringMatching(/\.mp3$/) })
  // The wire format (masto turns meta's keys to camelCase).
  expect((await getMedia(media.id).expect(200)).body.meta).toEqual({
    length: expect.stringMatching(/^0:00:03\.\d\d$/),
    duration: expect.any(Number),
    audio_encode: 'mp3',
    audio_bitrate: '44100 Hz',
    audio_channels: 'mono',
    original: { duration: expect.any(Number), bitrate: expect.any(Number) },
  })
  const served = await probeBuffer(await download(media.url!))
  expect(served.codecs).toEqual(['audio:mp3'])
  expect(served.duration).toBeCloseTo(3, 0)
})

it('an animated GIF becomes a silent H.264 `gifv` with a preview; a still GIF stays an image', async () => {
  const media = await api.v2.media.create({ file: blob(await animatedGif(), 'image/gif') })
  expect(media).toMatchObject({ type: 'gifv', url: expect.stringMatching(/\.mp4$/) })
  expect(media.meta).toMatchObject({ width: 64, height: 48, small: { width: 64, height: 48 } })
  const served = await probeBuffer(await download(media.url!))
  expect(served.codecs).toEqual(['video:h264'])
  expect(served.duration).toBeGreaterThan(0.3)
  expect((await sharp(await download(media.previewUrl!)).metadata()).format).toBe('jpeg')

  const still = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
    .gif()
    .toBuffer()
  expect(await api.v2.media.create({ file: blob(still, 'image/gif') })).toMatchObject({ type: 'image' })
})

it('v1 processes in the request and answers 200: a WebM is transcoded to H.264/AAC MP4', async () => {
  const res = await stack
    .api()
    .post('/api/v1/media')
    .set(bearer(token))
    .attach('file', await webm(), { filename: 'clip.webm', contentType: 'video/webm' })
    .expect(200)
  expect(res.body).toMatchObject({ type: 'video', url: expect.stringMatching(/\.mp4$/) })
  expect((await probeBuffer(await download(res.body.url))).codecs).toEqual(['video:h264', 'audio:aac'])
})

it('a file ffprobe cannot read is a 422 at upload, on v1 and v2', async () => {
  const junk = Buffer.from('not a video at all, whatever the header says '.repeat(100))
  for (const version of ['v1', 'v2'])
    await stack
      .api()
      .post(`/api/${version}/media`)
      .set(bearer(token))
      .attach('file', junk, { filename: 'clip.mp4', contentType: 'video/mp4' })
      .expect(422, { error: 'File type of uploaded media could not be verified' })
})

it("a video over Mastodon's 3840×2160 pixels or 120 fps is its 422 at upload; at the limits it is taken", async () => {
  const clip = (size: string, rate: number) =>
    generate(
      [
        ...['-f', 'lavfi', '-i', `color=c=blue:size=${size}:rate=${rate}:duration=0.1`],
        ...['-c:v', 'mpeg4', '-q:v', '31'],
      ],
      'mp4',
    )
  const upload = (data: Buffer) =>
    stack
      .api()
      .post('/api/v2/media')
      .set(bearer(token))
      .attach('file', data, { filename: 'clip.mp4', contentType: 'video/mp4' })
  await upload(await clip('3856x2160', 25)).expect(422, { error: '3856x2160 videos are not supported' })
  await upload(await clip('320x240', 150)).expect(422, { error: '150fps videos are not supported' })
  await upload(await clip('3840x2160', 25)).expect(202)
  await upload(await clip('320x240', 120)).expect(202)
  await stack.drain(120_000)
})

it('a processing that fails marks the upload failed: GET and posting it answer 422, and the job ends', async () => {
  await stack.accountsWorker!.pause()
  const media = await api.v2.media.create({ file: blob(await mp4(), 'video/mp4'), skipPolling: true })
  // The source goes missing before the worker gets to it (a storage failure): the job cannot succeed.
  const row = await stack.accounts.ctx.db('media_attachments').where({ id: media.id }).first()
  await stack.accounts.ctx.media.remove(row.file)
  await stack.accountsWorker!.resume()
  await stack.drain(120_000)
  expect((await stack.accounts.ctx.db('media_attachments').where({ id: media.id }).first()).processing).toBe(
    'failed',
  )
  await getMedia(media.id).expect(422, { error: FAILED })
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(token))
    .send({ status: 'broken', media_ids: [media.id] })
    .expect(422, { error: NOT_READY })
})

it('`thumbnail` sets a custom preview on upload and on PUT, re-encoded as JPEG', async () => {
  const red = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#c00' } })
    .png()
    .toBuffer()
  const media = await api.v2.media.create({
    file: blob(await mp3(), 'audio/mpeg'),
    thumbnail: blob(red, 'image/png'),
  })
  expect(media.previewUrl).toMatch(/[0-9a-f]{32}\.jpg$/)
  const first = await sharp(await download(media.previewUrl!)).metadata()
  expect(first).toMatchObject({ format: 'jpeg', width: 400, height: 300 })

  const blue = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#00c' } })
    .jpeg()
    .withMetadata({ exif: { IFD0: { Copyright: 'someone' } } })
    .toBuffer()
  // masto 7 sends an update as JSON, which carries no file: the multipart PUT an app with a file sends.
  const updated = (
    await stack
      .api()
      .put(`/api/v1/media/${media.id}`)
      .set(bearer(token))
      .attach('thumbnail', blue, { filename: 'blue.jpg', contentType: 'image/jpeg' })
      .field('description', 'A tone')
      .expect(200)
  ).body
  expect(updated).toMatchObject({ description: 'A tone', type: 'audio' })
  expect(updated.preview_url).not.toBe(media.previewUrl)
  const second = await sharp(await download(updated.preview_url)).metadata()
  expect(second).toMatchObject({ format: 'jpeg', width: 100 })
  expect(second.exif).toBeUndefined()
  // Not an image: 422.
  await stack
    .api()
    .put(`/api/v1/media/${media.id}`)
    .set(bearer(token))
    .attach('thumbnail', Buffer.from('text'), { filename: 't.png', contentType: 'image/png' })
    .expect(422)
})
