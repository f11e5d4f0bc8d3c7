import type { Knex } from '@roost/db'
import type { Logger, OutboundClient, OutboundResponse } from '@roost/service'
import { createOutboundClient, OutboundError } from '@roost/service'
import { localDomainOf } from '../../config'
import type { Urls } from '../../entities/account'
import { urlsOf } from '../../entities/account'
import { instanceKeyPair, localKeyPair } from './keys'
import type { SignatureScheme } from './signatures'
import { signRequest } from './signatures'
import { signMessage } from './message-signatures'
import { knownScheme, otherScheme, rememberScheme } from './signature-schemes'
import { LD_JSON_ACTIVITYSTREAMS } from '../render/contexts'
import { actorUri, instanceActorUri } from '../uris'

/**
 * What federation code needs, in the accounts service and its worker alike (docs/federation.md): the database,
 * our addresses, and one outbound client through which every request to another server goes, signed.
 */
export interface Federation {
  db: Knex
  urls: Urls
  localDomain: string
  /** FEDERATION_ALLOW_HTTP: peers over http:// and on private addresses (development and tests). */
  allowHttp: boolean
  enabled: boolean
  /**
   * Public and unlisted posts' activities carry their author's Linked Data signature, so that other servers can
   * forward them (docs/federation.md, "Forwarded activities"); not in secure mode (AUTHORIZED_FETCH), as Mastodon.
   */
  signsLinkedData: boolean
  logger: Logger
  /** A signed GET of an ActivityPub document (signed by the instance actor); its JSON, or a FetchError. */
  fetchJson(url: string): Promise<Record<string, unknown>>
  /** An unsigned GET of a JSON document (WebFinger). */
  fetchPlainJson(url: string): Promise<Record<string, unknown>>
  /**
   * An unsigned GET of a remote status's attachment (as Mastodon fetches media), at most REMOTE_MEDIA_MAX_BYTES:
   * its bytes, or a FetchError (refused address, an answer other than 2xx, too large, too slow).
   */
  fetchMedia(url: string): Promise<Buffer>
  /**
   * An unsigned GET (or HEAD) of a web page, as a browser asks for it: the page a profile field links to, read for
   * its `rel="me"` links (docs/federation.md, "Profile fields"). At most 1 MB, redirects not followed.
   */
  fetchPage(url: string, method?: 'GET' | 'HEAD'): Promise<OutboundResponse>
  /** A signed POST of an activity to an inbox, signed by the local account `accountId` (null: the instance actor). */
  post(inbox: string, body: string, accountId: string | null): Promise<OutboundResponse>
  close(): void
}

/** A document that could not be fetched or read; `status` is the peer's answer, when there was one. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message)
  }
}

/** Loopback and private ranges, reachable only with FEDERATION_ALLOW_HTTP (development and tests). */
export const PRIVATE_RANGES = '127.0.0.0/8,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,::1/128,fc00::/7'

const ACCEPT = `${LD_JSON_ACTIVITYSTREAMS}, application/activity+json`

export function createFederation(options: {
  db: Knex
  config: {
    PUBLIC_URL: string
    LOCAL_DOMAIN?: string
    FEDERATION: boolean
    FEDERATION_ALLOW_HTTP: boolean
    REMOTE_MEDIA_MAX_BYTES?: number
    HTTP_SIGNATURE_FIRST?: SignatureScheme
    AUTHORIZED_FETCH?: boolean
  }
  logger: Logger
  client?: OutboundClient
}): Federation {
  const { db, config, logger } = options
  const urls = urlsOf(config)
  const clientOptions = {
    allowHttp: config.FEDERATION_ALLOW_HTTP,
    allowedPrivateAddresses: config.FEDERATION_ALLOW_HTTP ? PRIVATE_RANGES : '',
    userAgent: `Roost (+${urls.base}/)`,
  }
  // One client, one pool of connections, for documents, deliveries and media alike: a server's media come over the
  // connections its documents opened. Media are larger and slower than documents: their own size and deadline.
  const client = options.client ?? createOutboundClient(clientOptions)
  const media = { maxBytes: config.REMOTE_MEDIA_MAX_BYTES ?? 16 * 1024 * 1024, timeoutMs: 30_000 }

  const readJson = (url: string, res: OutboundResponse) => {
    if (res.status < 200 || res.status > 299)
      throw new FetchError(`${url} answered ${res.status}`, res.status)
    let json: unknown
    try {
      json = JSON.parse(res.body.toString('utf8'))
    } catch {
      throw new FetchError(`${url} did not answer JSON`)
    }
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw new FetchError(`${url} did not answer a JSON object`)
    return json as Record<string, unknown>
  }
  const send = async (...args: Parameters<OutboundClient['request']>) => {
    try {
      return await client.request(...args)
    } catch (err) {
      if (err instanceof OutboundError) throw new FetchError(err.message)
      throw new FetchError(`${String(args[1])}: ${(err as Error).message}`)
    }
  }

  /** The key that signs as `accountId`, a local account, or as the instance actor (null). */
  async function signer(accountId: string | null) {
    if (accountId === null)
      return { keyId: `${instanceActorUri(urls)}#main-key`, keys: await instanceKeyPair(db) }
    const account = await db('accounts').where({ id: accountId }).whereNull('domain').first('username')
    if (!account) throw new FetchError(`no local account ${accountId} to sign with`)
    return { keyId: `${actorUri(urls, account.username)}#main-key`, keys: await localKeyPair(db, accountId) }
  }

  /**
   * A request signed as `accountId` (null: the instance actor), double-knocking as Mastodon does: signed with the
   * scheme the host accepted before (HTTP_SIGNATURE_FIRST when unknown); after a 401, once more with the other;
   * the scheme of a 2xx is remembered for the host (signature-schemes.ts).
   */
  async function signedRequest(
    method: 'GET' | 'POST',
    target: URL,
    headers: Record<string, string>,
    body: string | undefined,
    accountId: string | null,
  ) {
    const { keyId, keys } = await signer(accountId)
    const domain = target.host.toLowerCase()
    const known = await knownScheme(db, domain)
    const attempt = (scheme: SignatureScheme) => {
      const r = { method, url: target, body, keyId, privateKey: keys.privateKey }
      const signed = scheme === 'rfc9421' ? signMessage(r) : signRequest(r)
      return send(method, target, { ...headers, ...signed }, body)
    }
    let scheme = known ?? config.HTTP_SIGNATURE_FIRST ?? 'draft-cavage'
    let res = await attempt(scheme)
    if (res.status === 401) {
      scheme = otherScheme(scheme)
      res = await attempt(scheme)
    }
    if (res.status >= 200 && res.status < 300 && scheme !== known) await rememberScheme(db, domain, scheme)
    return res
  }

  return {
    db,
    urls,
    localDomain: localDomainOf(config),
    allowHttp: config.FEDERATION_ALLOW_HTTP,
    enabled: config.FEDERATION,
    signsLinkedData: !config.AUTHORIZED_FETCH,
    logger,
    async fetchJson(url) {
      return readJson(url, await signedRequest('GET', new URL(url), { Accept: ACCEPT }, undefined, null))
    },
    async fetchPlainJson(url) {
      return readJson(url, await send('GET', url, { Accept: 'application/jrd+json, application/json' }))
    },
    async fetchMedia(url) {
      const res = await send('GET', url, { Accept: '*/*' }, undefined, media)
      if (res.status < 200 || res.status > 299)
        throw new FetchError(`${url} answered ${res.status}`, res.status)
      return res.body
    },
    fetchPage(url, method = 'GET') {
      return send(method, url, { Accept: 'text/html' }, undefined, { maxBytes: 1024 * 1024 })
    },
    async post(inbox, body, accountId) {
      const headers = { 'Content-Type': 'application/activity+json' }
      return signedRequest('POST', new URL(inbox), headers, body, accountId)
    },
    close: () => client.close(),
  }
}
