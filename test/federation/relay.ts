import { generateKeyPairSync } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { testOutboundClient } from './mini-peer'
import {
  checkSignedRequest,
  signRequest,
  verifiedBy,
} from '../../apps/accounts/src/federation/transport/signatures'

/**
 * A small ActivityPub relay for the relay tests (docs/federation.md, "Relays"), written from the protocol as the
 * relays in use speak it (pub-relay, Aode Relay, activity-relay): an `Application` actor at /actor and an inbox at
 * /inbox that checks every request's HTTP signature against the signer's key (fetched from its actor document).
 * A server subscribes with a `Follow` of `as:Public` (Mastodon's style: what other subscribers send is forwarded to
 * it as it came, under the relay's signature) or of the relay's actor (LitePub's: it gets an `Announce` of each
 * post, and the relay follows it back). Each subscriber gets an `Accept`; an `Undo` of the Follow unsubscribes.
 * A `Create`, `Update`, `Delete` or `Announce` from a subscribed server goes to every other subscriber.
 */
export interface RelaySubscriber {
  /** The actor that followed (a server's instance actor), its host, its inbox, its style. */
  actor: string
  host: string
  inbox: string
  style: 'mastodon' | 'litepub'
}

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'
const AS = 'https://www.w3.org/ns/activitystreams'

export async function startRelay() {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  const client = testOutboundClient()
  const subscribers = new Map<string, RelaySubscriber>()
  /** Every activity whose signature held, in order, with its signer's actor. */
  const received: { activity: Record<string, unknown>; signer: string }[] = []
  /** Requests refused (bad signature, unknown key). */
  let refused = 0
  let sent = 0
  let base = ''
  const actorId = () => `${base}/actor`

  const getJson = async (url: string) => {
    const res = await client.request('GET', url, { Accept: 'application/activity+json' })
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
    return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>
  }
  const post = async (inbox: string, body: string) => {
    const signed = signRequest({
      method: 'POST',
      url: new URL(inbox),
      body,
      keyId: `${actorId()}#main-key`,
      privateKey: keys.privateKey,
    })
    const res = await client.request(
      'POST',
      inbox,
      { 'Content-Type': 'application/activity+json', ...signed },
      body,
    )
    if (res.status >= 300) throw new Error(`${inbox} answered ${res.status}`)
  }

  async function handle(activity: Record<string, unknown>, raw: string, signer: Record<string, unknown>) {
    const signerId = String(signer.id)
    const host = new URL(signerId).host
    const type = activity.type
    if (type === 'Follow' && (activity.object === PUBLIC || activity.object === actorId())) {
      const endpoints = signer.endpoints as { sharedInbox?: string } | undefined
      const sub: RelaySubscriber = {
        actor: signerId,
        host,
        inbox: endpoints?.sharedInbox ?? String(signer.inbox),
        style: activity.object === PUBLIC ? 'mastodon' : 'litepub',
      }
      subscribers.set(signerId, sub)
      await post(
        String(signer.inbox),
        JSON.stringify({
          '@context': AS,
          id: `${base}/activities/${++sent}`,
          type: 'Accept',
          actor: actorId(),
          object: activity,
        }),
      )
      // A LitePub relay follows its subscriber back.
      if (sub.style === 'litepub')
        await post(
          String(signer.inbox),
          JSON.stringify({
            '@context': AS,
            id: `${base}/activities/${++sent}`,
            type: 'Follow',
            actor: actorId(),
            object: signerId,
          }),
        )
      return
    }
    if (type === 'Undo') {
      const object = activity.object as { type?: string } | undefined
      if (object?.type === 'Follow') subscribers.delete(signerId)
      return
    }
    if (!['Create', 'Update', 'Delete', 'Announce'].includes(String(type))) return
    // Only what a subscribed server sends is relayed.
    if (![...subscribers.values()].some((s) => s.host === host)) return
    const objectId =
      typeof activity.object === 'string' ? activity.object : (activity.object as { id?: string })?.id
    for (const sub of subscribers.values()) {
      if (sub.host === host) continue
      if (sub.style === 'mastodon') await post(sub.inbox, raw)
      else if (type === 'Create' || type === 'Announce')
        await post(
          sub.inbox,
          JSON.stringify({
            '@context': AS,
            id: `${base}/activities/${++sent}`,
            type: 'Announce',
            actor: actorId(),
            object: objectId,
            to: [`${base}/followers`],
          }),
        )
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url!, base)
      if (req.method === 'GET' && url.pathname === '/actor') {
        res.writeHead(200, { 'Content-Type': 'application/activity+json' })
        return res.end(
          JSON.stringify({
            '@context': [AS, 'https://w3id.org/security/v1'],
            id: actorId(),
            type: 'Application',
            preferredUsername: 'relay',
            inbox: `${base}/inbox`,
            followers: `${base}/followers`,
            endpoints: { sharedInbox: `${base}/inbox` },
            publicKey: { id: `${actorId()}#main-key`, owner: actorId(), publicKeyPem: keys.publicKey },
          }),
        )
      }
      if (req.method !== 'POST' || url.pathname !== '/inbox') return res.writeHead(404).end()
      const body = Buffer.concat(chunks)
      void (async () => {
        let activity: Record<string, unknown>
        let signer: Record<string, unknown>
        try {
          const checked = checkSignedRequest({ method: 'POST', url: req.url!, headers: req.headers, body })
          signer = await getJson(checked.keyId.replace(/#.*$/, ''))
          const key = (signer.publicKey as { publicKeyPem?: string } | undefined)?.publicKeyPem
          if (!key || !verifiedBy(key, checked)) throw new Error('signature')
          activity = JSON.parse(body.toString('utf8')) as Record<string, unknown>
        } catch {
          refused++
          return res.writeHead(401).end()
        }
        received.push({ activity, signer: String(signer.id) })
        res.writeHead(202).end()
        await handle(activity, body.toString('utf8'), signer).catch(() => {})
      })()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    get base() {
      return base
    },
    get inbox() {
      return `${base}/inbox`
    },
    get actor() {
      return actorId()
    },
    subscribers,
    received,
    get refused() {
      return refused
    },
    async stop() {
      client.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export type Relay = Awaited<ReturnType<typeof startRelay>>
