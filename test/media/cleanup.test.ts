import { existsSync, utimesSync } from 'node:fs'
import path from 'node:path'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer, PeerActor } from '../federation/mini-peer'
import { removeCachedAttachments, removeOrphans } from '../../apps/accounts/src/media/cleanup'
import { localFiles } from '../../apps/accounts/src/media/files'
import type { MediaFiles } from '../../apps/accounts/src/media/files'
import { MEDIA_CLEANUP_SCHEDULER, scheduleMediaCleanup } from '../../apps/accounts/src/worker/timers'
import { ageAttachment, fileOf, png, receiveRemoteImage, roost } from './helpers'

/**
 * The media cleanup on the local directory (docs/media.md, "Cleaning the cache"): `media remove` deletes our
 * copies of remote attachments older than N days and the entities link to the originals again; `media
 * remove-orphans` deletes attachments never posted a day after their upload and files no row names that are a
 * day old; `--dry-run` changes nothing. Each through its domain function and through the CLI; and the worker's
 * daily timer.
 */
const DAY = 86_400_000
let stack: Stack
let peer: MiniPeer
let mallory: PeerActor
let alice: TestUser
let files: MediaFiles
let dir: string

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', MEDIA_CACHE_RETENTION_PERIOD: '2' } })
  dir = stack.env.MEDIA_DIR!
  files = localFiles(dir)
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const stored = (name: string) => existsSync(path.join(dir, name))
/** Makes a stored file look `ms` old (its modification time). */
const ageFile = (name: string, ms: number) => {
  const then = new Date(Date.now() - ms)
  utimesSync(path.join(dir, name), then, then)
}
const db = () => stack.accounts.ctx.db
const localEnv = () => ({ MEDIA_DIR: dir })

async function upload(image: Buffer) {
  const res = await stack
    .api()
    .post('/api/v2/media')
    .set('Authorization', `Bearer ${alice.token}`)
    .attach('file', image, { filename: 'photo.png', contentType: 'image/png' })
    .expect(200)
  return res.body as { id: string; url: string; preview_url: string }
}

/** An orphan file: written to the directory with no row naming it. */
async function orphanFile(seed: number, ageMs: number) {
  const name = `${seed.toString(16).padStart(32, 'c')}.png`
  await files.put(name, await png(4, 4), 'image/png')
  if (ageMs) ageFile(name, ageMs)
  return name
}

describe('media remove', () => {
  it('deletes our copy of a remote attachment older than N days; the row keeps remote_url and the entity links to it', async () => {
    const old = await receiveRemoteImage(
      stack,
      peer,
      mallory,
      alice,
      await png(300, 200, { r: 9, g: 9, b: 9 }),
    )
    const recent = await receiveRemoteImage(
      stack,
      peer,
      mallory,
      alice,
      await png(300, 200, { r: 8, g: 8, b: 8 }),
    )
    expect(old.media.url.startsWith(`${stack.url}/media/`)).toBe(true)
    await ageAttachment(stack, old.media.id, 5 * DAY)

    const dry = await removeCachedAttachments(db(), files, new Date(Date.now() - 3 * DAY), { dryRun: true })
    expect(dry).toEqual({ attachments: 1, files: 2 })
    expect(stored(fileOf(old.media.url))).toBe(true)

    const lines: string[] = []
    const done = await removeCachedAttachments(db(), files, new Date(Date.now() - 3 * DAY), {
      progress: (line) => lines.push(line),
    })
    expect(done).toEqual({ attachments: 1, files: 2 })
    expect(lines).toEqual(['1 remote attachments, 2 files'])
    expect(stored(fileOf(old.media.url))).toBe(false)
    expect(stored(fileOf(old.media.preview_url))).toBe(false)
    expect(stored(fileOf(recent.media.url))).toBe(true)
    const row = await db()('media_attachments').where({ id: old.media.id }).first()
    expect(row).toMatchObject({ file: '', preview_file: null, remote_url: old.remote })
    const entity = (await alice.get(`/api/v1/statuses/${old.statusId}`).expect(200)).body.media_attachments[0]
    expect(entity).toMatchObject({
      id: old.media.id,
      url: old.remote,
      remote_url: old.remote,
      description: 'a picture',
    })
    // Nothing left to do the second time.
    expect(await removeCachedAttachments(db(), files, new Date(Date.now() - 3 * DAY))).toEqual({
      attachments: 0,
      files: 0,
    })
  })

  it('through the CLI: --days, --dry-run and a progress line', async () => {
    const { statusId, remote, media } = await receiveRemoteImage(
      stack,
      peer,
      mallory,
      alice,
      await png(30, 20),
    )
    await ageAttachment(stack, media.id, 10 * DAY)

    const dry = await roost(stack, localEnv(), 'media', 'remove', '--days', '9', '--dry-run')
    expect(dry).toMatchObject({ code: 0 })
    expect(dry.stdout).toContain('Removed 1 remote media attachments (2 files) (dry run: nothing changed)')
    expect(stored(fileOf(media.url))).toBe(true)

    const done = await roost(stack, localEnv(), 'media', 'remove', '--days', '9')
    expect(done).toMatchObject({ code: 0 })
    expect(done.stdout).toContain('Removed 1 remote media attachments (2 files)')
    expect(done.stderr).toContain('remove: 1 remote attachments, 2 files')
    expect(stored(fileOf(media.url))).toBe(false)
    const entity = (await alice.get(`/api/v1/statuses/${statusId}`).expect(200)).body.media_attachments[0]
    expect(entity.url).toBe(remote)

    // The default is MEDIA_CACHE_RETENTION_PERIOD, here a day; nothing that young is left.
    const byDefault = await roost(
      stack,
      { ...localEnv(), MEDIA_CACHE_RETENTION_PERIOD: '1' },
      'media',
      'remove',
    )
    expect(byDefault.stdout).toContain('Removed 0 remote media attachments')
  })

  it('refuses wrong usage with exit code 2', async () => {
    expect(await roost(stack, localEnv(), 'media', 'remove', '--days', 'soon')).toMatchObject({ code: 2 })
    expect(await roost(stack, localEnv(), 'media', 'shrink')).toMatchObject({ code: 2 })
    const both = await roost(stack, localEnv(), 'media', 'remove', '--prune-profiles', '--remove-headers')
    expect(both.code).toBe(2)
  })
})

describe('media remove-orphans', () => {
  it('deletes a day-old orphan file and a day-old unattached attachment; fresh ones, posted ones and named files stay', async () => {
    const orphan = await orphanFile(1, 2 * DAY)
    const freshOrphan = await orphanFile(2, 0)
    const oldRow = await upload(await png(40, 40))
    await ageAttachment(stack, oldRow.id, 2 * DAY)
    const freshRow = await upload(await png(41, 41))
    const posted = await upload(await png(42, 42))
    await alice.post('/api/v1/statuses', { status: 'with a picture', media_ids: [posted.id] }).expect(200)
    await ageAttachment(stack, posted.id, 3 * DAY)
    // Files of rows are old too: only their rows keep them.
    for (const m of [freshRow, posted])
      for (const url of [m.url, m.preview_url]) ageFile(fileOf(url), 3 * DAY)

    const before = await db()('media_attachments').count('* as n')
    const dry = await removeOrphans(db(), files, { dryRun: true })
    expect(dry).toMatchObject({ attachments: 1, files: 1 })
    expect(stored(orphan)).toBe(true)
    expect(await db()('media_attachments').count('* as n')).toEqual(before)

    const lines: string[] = []
    const done = await removeOrphans(db(), files, { progress: (line) => lines.push(line) })
    expect(done).toMatchObject({ attachments: 1, files: 1 })
    expect(lines[0]).toBe('1 unattached attachments')
    expect(lines[lines.length - 1]).toMatch(/^\d+ files checked, 1 orphans \(\d+ bytes\)$/)
    expect(stored(orphan)).toBe(false)
    expect(stored(freshOrphan)).toBe(true)
    expect(stored(fileOf(oldRow.url))).toBe(false)
    expect(stored(fileOf(oldRow.preview_url))).toBe(false)
    expect(await db()('media_attachments').where({ id: oldRow.id }).first()).toBeUndefined()
    for (const m of [freshRow, posted]) {
      expect(await db()('media_attachments').where({ id: m.id }).first()).toBeDefined()
      expect(stored(fileOf(m.url))).toBe(true)
      expect(stored(fileOf(m.preview_url))).toBe(true)
    }
    await alice.delete(`/api/v1/media/${freshRow.id}`).expect(200)
  })

  it('keeps avatars and headers, which rows name', async () => {
    const res = await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${alice.token}`)
      .attach('avatar', await png(100, 100), { filename: 'a.png', contentType: 'image/png' })
      .attach('header', await png(300, 100), { filename: 'h.png', contentType: 'image/png' })
      .expect(200)
    for (const url of [res.body.avatar, res.body.header]) ageFile(fileOf(url), 3 * DAY)
    expect((await removeOrphans(db(), files)).files).toBe(0)
    for (const url of [res.body.avatar, res.body.header]) expect(stored(fileOf(url))).toBe(true)
  })

  it('through the CLI: --dry-run changes nothing, then the orphans go, with a progress line', async () => {
    const orphan = await orphanFile(3, 2 * DAY)
    const oldRow = await upload(await png(43, 43))
    await ageAttachment(stack, oldRow.id, 2 * DAY)

    const dry = await roost(stack, localEnv(), 'media', 'remove-orphans', '--dry-run')
    expect(dry).toMatchObject({ code: 0 })
    expect(dry.stdout).toMatch(
      /Removed 1 unattached media attachments and 1 orphan files \(\d+ bytes\) \(dry run/,
    )
    expect(stored(orphan)).toBe(true)
    expect(await db()('media_attachments').where({ id: oldRow.id }).first()).toBeDefined()

    const done = await roost(stack, localEnv(), 'media', 'remove-orphans')
    expect(done).toMatchObject({ code: 0 })
    expect(done.stdout).toMatch(/Removed 1 unattached media attachments and 1 orphan files/)
    expect(done.stderr).toMatch(
      /remove-orphans: 1 unattached attachments\nremove-orphans: \d+ files checked, 1 orphans/,
    )
    expect(stored(orphan)).toBe(false)
    expect(await db()('media_attachments').where({ id: oldRow.id }).first()).toBeUndefined()
  })
})

describe('the daily media.cleanup timer', () => {
  it('is one job scheduler however many workers set it', async () => {
    const timers = stack.accountsWorker!.timers
    await scheduleMediaCleanup(timers) // a second worker starting
    const schedulers = await timers.getJobSchedulers()
    expect(schedulers.filter((s) => s.key === MEDIA_CLEANUP_SCHEDULER)).toHaveLength(1)
    const delayed = await timers.getDelayed()
    expect(delayed.filter((j) => j.name === 'media.cleanup')).toHaveLength(1)
    const next = delayed.find((j) => j.name === 'media.cleanup')!
    const runsAt = next.timestamp + next.delay
    expect(runsAt - Date.now()).toBeLessThanOrEqual(DAY)
    expect(new Date(runsAt).toISOString()).toMatch(/T04:17:00/)
  })

  it('sweeps orphans and, with MEDIA_CACHE_RETENTION_PERIOD, remote copies older than that', async () => {
    const orphan = await orphanFile(4, 2 * DAY)
    const { media } = await receiveRemoteImage(stack, peer, mallory, alice, await png(31, 21))
    await ageAttachment(stack, media.id, 3 * DAY) // MEDIA_CACHE_RETENTION_PERIOD is 2
    await stack.accountsWorker!.timers.add('media.cleanup', { event: 'media.cleanup' })
    await stack.drain()
    expect(stored(orphan)).toBe(false)
    expect(stored(fileOf(media.url))).toBe(false)
    expect(await db()('media_attachments').where({ id: media.id }).first()).toMatchObject({ file: '' })
  })
})
