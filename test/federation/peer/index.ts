import { spawn } from 'node:child_process'
import type { JsonWebKey } from 'node:crypto'
import path from 'node:path'
import { createInterface } from 'node:readline'

/**
 * The Fedify test peer (./peer.mjs): an independent ActivityPub server in a child process, driven through its
 * control API. See docs/federation.md, "Interoperability tests".
 */
export interface PeerOptions {
  /** Its local users (default `['bob']`). */
  users?: string[]
  /** Accept every Follow as it arrives. */
  autoAccept?: boolean
  /** `host:port`s of the Roost servers under test (plain http; see peer.mjs). */
  httpHosts?: string[]
}

export interface InboxEntry {
  type: string
  id: string | null
  actor: string | null
  object: string | null
  recipient: string | null
  json: Record<string, unknown> & { object?: unknown }
}

export interface PeerLog {
  inbox: InboxEntry[]
  signedGets: { path: string; identifier: string; keyId: string | null; owner: string | null }[]
  sent: { type: string; id: string | null; to: string; ok: boolean | null; error?: string }[]
}

export async function startPeer(options: PeerOptions = {}) {
  const child = spawn(process.execPath, [path.join(__dirname, 'peer.mjs')], {
    env: {
      ...process.env,
      PEER_USERS: (options.users ?? ['bob']).join(','),
      PEER_AUTO_ACCEPT: options.autoAccept ? 'true' : 'false',
      PEER_HTTP_HOSTS: (options.httpHosts ?? []).join(','),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('the Fedify peer did not start'))
    }, 120_000)
    lines.on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
    child.once('exit', (code) => reject(new Error(`the Fedify peer exited (${code})`)))
  })
  const url = `http://127.0.0.1:${port}`
  const host = `127.0.0.1:${port}`

  async function control<T = Record<string, unknown>>(name: string, body: unknown = {}): Promise<T> {
    const res = await fetch(`${url}/_peer/${name}`, { method: 'POST', body: JSON.stringify(body) })
    const value = (await res.json()) as T & { error?: string }
    if (!res.ok) throw new Error(`peer ${name}: ${res.status} ${value.error ?? ''}`)
    return value
  }

  return {
    url,
    host,
    /** The actor URL of one of its users. */
    actor: (user = options.users?.[0] ?? 'bob') => `${url}/users/${user}`,
    control,
    log: () => control<PeerLog>('log'),
    /** Fedify's WebFinger client on a resource (`acct:user@host` or a URL). */
    webfinger: (resource: string) => control<Record<string, unknown>>('webfinger', { resource }),
    /** Fedify's lookupObject (WebFinger for handles), with GETs signed by `as`. */
    lookup: (resource: string, as?: string) =>
      control<{ json: Record<string, unknown>; publicKey: JsonWebKey | null }>('lookup', { resource, as }),
    follow: (actor: string, as?: string) =>
      control<{ id: string; followId: string; target: string }>('follow', { actor, as }),
    unfollow: (actor: string, followId: string, as?: string) =>
      control<{ id: string }>('unfollow', { actor, followId, as }),
    accept: (follow: string, as?: string) => control<{ id: string }>('accept', { follow, as }),
    reject: (follow: string, as?: string) => control<{ id: string }>('reject', { follow, as }),
    /** A public Note of `as` mentioning `mention` (an actor URL), sent in a Create to its inbox. */
    post: (mention: string, mentionName: string, content: string, as?: string) =>
      control<{ id: string; note: string }>('post', { mention, mentionName, content, as }),
    /** Headers that sign a request with `as`'s key, made by Fedify's signRequest. */
    sign: (
      request: { method: string; url: string; headers?: Record<string, string>; body?: string },
      as?: string,
    ) => control<{ keyId: string; headers: Record<string, string> }>('sign', { ...request, as }),
    /**
     * A public Note of `as` answering `inReplyTo` in a Create (not sent), with an LD signature (`ld`) and/or an
     * FEP-8b32 integrity proof (`proof`) made by Fedify.
     */
    signedCreate: (input: {
      inReplyTo?: string
      content: string
      cc?: string[]
      ld?: boolean
      proof?: boolean
      as?: string
    }) => control<{ json: Record<string, unknown>; note: string }>('signed-create', input),
    /** POSTs `json` as it is to `inbox`, signed over HTTP by `as` (Fedify's signRequest); the answer's status. */
    deliver: (inbox: string, json: unknown, as?: string) =>
      control<{ status: number }>('deliver', { inbox, json, as }),
    /** Fedify's verifyJsonLd on a document signed elsewhere. */
    verifyLd: (json: unknown) => control<{ verified: boolean }>('verify-ld', { json }),
    /** Fedify's verifyRequest on a request signed elsewhere. */
    verify: (request: { method: string; url: string; headers: Record<string, string>; body?: string }) =>
      control<{ verified: boolean; keyId: string | null; owner: string | null }>('verify', request),
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

export type Peer = Awaited<ReturnType<typeof startPeer>>
