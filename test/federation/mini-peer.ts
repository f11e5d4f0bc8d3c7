import { generateKeyPairSync } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient } from '@roost/service'
import { signRequest } from '../../apps/accounts/src/federation/transport/signatures'

/**
 * A minimal ActivityPub server for the inbox and delivery tests: actors with RSA keys served over http:// on
 * 127.0.0.1 (WebFinger and the actor document), inboxes that record what arrives and answer as told (a status,
 * or a dropped connection), and signed POSTs to a Roost inbox. For interoperability with an independent
 * implementation see test/federation/peer (Fedify); this one lets a test break the rules on purpose.
 */
export interface PeerActor {
  username: string
  uri: string
  keyId: string
  publicKey: string
  privateKey: string
  name: string
  locked: boolean
  /** The actor's type (Person unless told: a Group for a Lemmy community or a PeerTube channel). */
  type?: string
  /** More properties of the actor document (`alsoKnownAs`, `featured`, …), changeable by the test. */
  extra?: Record<string, unknown>
}

export interface Received {
  path: string
  headers: http.IncomingHttpHeaders
  body: string
  activity: Record<string, unknown>
}

const newKeys = () =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })

export async function startMiniPeer() {
  const actors = new Map<string, PeerActor>()
  /** Other documents served (GET, by URL): Notes a test makes fetchable. */
  const objects = new Map<string, unknown>()
  /** Files served (GET, by path: a status's attachments), and the paths asked for, in order. */
  const files = new Map<string, { type: string; body: Buffer; failures: number }>()
  const fileRequests: string[] = []
  const received: Received[] = []
  let notes = 0
  /** Answers of the inboxes, taken one per POST; empty: 202. `drop` closes the connection without answering. */
  const answers: (number | 'drop')[] = []
  let attempts = 0
  let base = ''
  /** Inbox POSTs being answered now, and the most there ever were at once; `holdMs` delays every inbox answer. */
  const inboxLoad = { inFlight: 0, maxInFlight: 0, holdMs: 0 }

  const actorJson = (a: PeerActor) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: a.uri,
    type: a.type ?? 'Person',
    preferredUsername: a.username,
    name: a.name,
    summary: '<p>Hello <b>from</b> the peer<br>second line</p><script>alert(1)</script>',
    url: `${base}/@${a.username}`,
    inbox: `${a.uri}/inbox`,
    outbox: `${a.uri}/outbox`,
    followers: `${a.uri}/followers`,
    following: `${a.uri}/following`,
    endpoints: { sharedInbox: `${base}/inbox` },
    manuallyApprovesFollowers: a.locked,
    publicKey: { id: a.keyId, owner: a.uri, publicKeyPem: a.publicKey },
    ...a.extra,
  })

  const isInbox = (path: string) => path === '/inbox' || /^\/users\/[^/]+\/inbox$/.test(path)
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && isInbox(new URL(req.url!, 'http://x').pathname)) {
      inboxLoad.maxInFlight = Math.max(inboxLoad.maxInFlight, ++inboxLoad.inFlight)
      // Out of flight as soon as the answer starts (before the sender can hear it), or when the request dies.
      let done = false
      const finish = () => {
        if (!done) inboxLoad.inFlight--
        done = true
      }
      res.on('close', finish)
      const writeHead = res.writeHead.bind(res)
      res.writeHead = ((...args: Parameters<typeof res.writeHead>) => {
        finish()
        return writeHead(...args)
      }) as typeof res.writeHead
    }
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url!, base)
      if (req.method === 'GET' && url.pathname === '/.well-known/webfinger') {
        const m = /^acct:([^@]+)@/.exec(url.searchParams.get('resource') ?? '')
        const a = m ? actors.get(m[1]!) : undefined
        if (!a) return res.writeHead(404).end()
        res.writeHead(200, { 'Content-Type': 'application/jrd+json' })
        return res.end(
          JSON.stringify({
            subject: `acct:${a.username}@${new URL(base).host}`,
            links: [{ rel: 'self', type: 'application/activity+json', href: a.uri }],
          }),
        )
      }
      const file = req.method === 'GET' ? files.get(url.pathname) : undefined
      if (req.method === 'GET' && url.pathname.startsWith('/files/')) fileRequests.push(url.pathname)
      if (file && file.failures > 0) {
        file.failures--
        return res.writeHead(503).end()
      }
      if (file) {
        res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length })
        return res.end(file.body)
      }
      const object = req.method === 'GET' ? objects.get(`${base}${url.pathname}`) : undefined
      if (object) {
        res.writeHead(200, { 'Content-Type': 'application/activity+json' })
        return res.end(JSON.stringify(object))
      }
      const actor = /^\/users\/([^/]+)$/.exec(url.pathname)
      if (req.method === 'GET' && actor) {
        const a = actors.get(actor[1]!)
        if (!a) return res.writeHead(404).end()
        res.writeHead(200, { 'Content-Type': 'application/activity+json' })
        return res.end(JSON.stringify(actorJson(a)))
      }
      if (req.method === 'POST' && isInbox(url.pathname)) {
        attempts++
        const answer = answers.shift() ?? 202
        if (answer === 'drop') return req.socket.destroy()
        const respond = () => {
          if (answer < 300) {
            const body = Buffer.concat(chunks).toString('utf8')
            received.push({ path: url.pathname, headers: req.headers, body, activity: JSON.parse(body) })
          }
          res.writeHead(answer).end()
        }
        if (inboxLoad.holdMs) return void setTimeout(respond, inboxLoad.holdMs)
        return respond()
      }
      res.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = createOutboundClient({ allowHttp: true, allowedPrivateAddresses: '127.0.0.0/8' })

  const peer = {
    get base() {
      return base
    },
    get domain() {
      return new URL(base).host
    },
    actors,
    objects,
    /** Serves `body` at `<base>/files/<name>` (after answering 503 `failFirst` times); its URL. */
    file(name: string, type: string, body: Buffer, options: { failFirst?: number } = {}) {
      files.set(`/files/${name}`, { type, body, failures: options.failFirst ?? 0 })
      return `${base}/files/${name}`
    },
    fileRequests,
    received,
    answers,
    get attempts() {
      return attempts
    },
    inboxLoad,
    /** Adds an actor (or gives an existing one a new key: key rotation). */
    actor(
      username: string,
      options: { locked?: boolean; name?: string; type?: string; extra?: Record<string, unknown> } = {},
    ): PeerActor {
      const uri = `${base}/users/${username}`
      const keys = newKeys()
      const a: PeerActor = {
        username,
        uri,
        keyId: `${uri}#main-key`,
        publicKey: keys.publicKey,
        privateKey: keys.privateKey,
        name: options.name ?? username,
        locked: options.locked ?? false,
        type: options.type,
        extra: options.extra,
      }
      actors.set(username, a)
      return a
    },
    actorJson,
    /**
     * A public Note of `author`'s (answering `inReplyTo`), served at its id unless `served` is false, and at `page`
     * (its `url`) when given.
     */
    note(
      author: PeerActor,
      text: string,
      inReplyTo?: string,
      options: { served?: boolean; page?: string } = {},
    ) {
      const n = ++notes
      const object = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${author.uri}/statuses/${n}`,
        type: 'Note',
        attributedTo: author.uri,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        cc: [`${author.uri}/followers`],
        content: `<p>${text}</p>`,
        published: new Date(Date.now() - 60_000 + n).toISOString(),
        ...(inReplyTo ? { inReplyTo } : {}),
        ...(options.page ? { url: options.page } : {}),
      }
      if (options.served !== false) objects.set(object.id, object)
      if (options.page) objects.set(options.page, object)
      return object
    },
    /**
     * POSTs `activity` to `inbox`, signed by `signer` (with `overrides` to break the rules: another key, a date,
     * headers taken out or changed, another body than the one signed).
     */
    async post(
      inbox: string,
      signer: PeerActor,
      activity: unknown,
      overrides: {
        privateKey?: string
        keyId?: string
        now?: Date
        body?: string
        headers?: Record<string, string | undefined>
      } = {},
    ) {
      const signedBody = typeof activity === 'string' ? activity : JSON.stringify(activity)
      const signed = signRequest({
        method: 'POST',
        url: new URL(inbox),
        body: signedBody,
        keyId: overrides.keyId ?? signer.keyId,
        privateKey: overrides.privateKey ?? signer.privateKey,
        now: overrides.now,
      })
      const headers: Record<string, string> = { 'Content-Type': 'application/activity+json' }
      for (const [k, v] of Object.entries({ ...signed, ...overrides.headers }))
        if (v !== undefined) headers[k] = v
      const res = await client.request('POST', inbox, headers, overrides.body ?? signedBody)
      const text = res.body.toString('utf8')
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined }
    },
    async stop() {
      client.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  return peer
}

export type MiniPeer = Awaited<ReturnType<typeof startMiniPeer>>
