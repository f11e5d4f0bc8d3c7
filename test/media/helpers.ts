import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { bundle } from '../bundle'
import type { Stack } from '../stack'
import type { TestUser } from '../accounts/social/helpers'
import type { MiniPeer, PeerActor } from '../federation/mini-peer'

const ROOT = path.resolve(__dirname, '../..')
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'

/** A PNG of one colour (or noise), as a phone or a peer would send. */
export const png = (width: number, height: number, colour = { r: 200, g: 40, b: 90 }) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer()

/**
 * Runs `roost …` (the CLI) as an operator would: the stack's database, and the media settings of `env` (MEDIA_DIR
 * or the S3_* of a bucket), nothing else.
 */
export async function roost(
  stack: Stack,
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [await bundle('apps/accounts/src/cli.ts'), ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: stack.env.DATABASE_URL,
          REDIS_URL: stack.env.REDIS_URL,
          REDIS_PREFIX: stack.env.REDIS_PREFIX,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...env,
        },
      },
    )
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

let n = 0
/**
 * `actor`'s public Note mentioning `alice` with one image attachment served by the peer, received through the
 * inbox and handled by the worker (which copies the image); the status as alice sees it.
 */
export async function receiveRemoteImage(
  stack: Stack,
  peer: MiniPeer,
  actor: PeerActor,
  alice: TestUser,
  image: Buffer,
) {
  const uri = `${actor.uri}/statuses/media-${++n}-${Date.now()}`
  const remote = peer.file(`picture-${n}.png`, 'image/png', image)
  const aliceUri = `${stack.url}/users/${alice.username}`
  const object = {
    id: uri,
    type: 'Note',
    attributedTo: actor.uri,
    to: [PUBLIC],
    cc: [aliceUri],
    content: `<p>@${alice.username} look</p>`,
    published: new Date().toISOString(),
    tag: [{ type: 'Mention', href: aliceUri, name: `@${alice.username}` }],
    attachment: [{ type: 'Document', mediaType: 'image/png', url: remote, name: 'a picture' }],
  }
  const create = {
    id: `${uri}/activity`,
    type: 'Create',
    actor: actor.uri,
    to: object.to,
    cc: object.cc,
    object,
  }
  const posted = await peer.post(`${stack.url}/inbox`, actor, create)
  if (posted.status !== 202) throw new Error(`the inbox answered ${posted.status}`)
  await stack.drain(120_000)
  const row = await stack.accounts.ctx.db('statuses').where({ uri }).first()
  const status = (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body
  return { statusId: row.id as string, remote, media: status.media_attachments[0] as Record<string, string> }
}

/** Moves an attachment's upload (its row's created_at) back `ms` in time. */
export const ageAttachment = (stack: Stack, id: string, ms: number) =>
  stack.accounts.ctx
    .db('media_attachments')
    .where({ id })
    .update({ created_at: new Date(Date.now() - ms) })

/** The file name at the end of a media URL. */
export const fileOf = (url: string) => url.split('/').pop()!
