import type { Knex } from '@roost/db'
import type { Logger, OutboundClient, OutboundResponse } from '@roost/service'
import { createOutboundClient, OutboundError } from '@roost/service'
import { localDomainOf } from '../../config'
import type { Urls } from '../../entities/account'
import { urlsOf } from '../../entities/account'
import { instanceKeyPair, localKeyPair } from './keys'
import { signRequest } from './signatures'
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

  return {
    db,
    urls,
    localDomain: localDomainOf(config),
    allowHttp: config.FEDERATION_ALLOW_HTTP,
    enabled: config.FEDERATION,
    logger,
    async fetchJson(url) {
      const target = new URL(url)
      const { keyId, keys } = await signer(null)
      const signed = signRequest({ method: 'GET', url: target, keyId, privateKey: keys.privateKey })
      return readJson(url, await send('GET', target, { Accept: ACCEPT, ...signed }))
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
    async post(inbox, body, accountId) {
      const target = new URL(inbox)
      const { keyId, keys } = await signer(accountId)
      const signed = signRequest({ method: 'POST', url: target, body, keyId, privateKey: keys.privateKey })
      return send('POST', target, { 'Content-Type': 'application/activity+json', ...signed }, body)
    },
    close: () => client.close(),
  }
}
