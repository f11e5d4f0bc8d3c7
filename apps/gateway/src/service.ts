import { Router } from 'express'
import type { RequestHandler } from 'express'
import { createRemoteJWKSet } from 'jose'
import { Redis } from 'ioredis'
import {
  authenticate,
  bySpecificity,
  createTokenVerifier,
  issuerOf,
  RevocationList,
  ROUTES,
} from '@roost/auth'
import type { Upstream } from '@roost/auth'
import { createApp, createLogger, createMetrics, finishApp, lifecycle } from '@roost/service'
import type { GatewayConfig } from './config'
import { mountBullBoard } from './bull-board'
import { createProxy } from './proxy'

/**
 * The gateway: the only public entry. For every route of the table it checks the token and scopes, then
 * forwards to the route's service; anything not in the table is a 404.
 */
export async function createGateway(config: GatewayConfig) {
  const logger = createLogger('gateway', config.LOG_LEVEL)
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true })
  await redis.connect()
  const revocations = new RevocationList(redis, config.REDIS_PREFIX)
  // jose caches the key set and refetches it when a token names an unknown `kid` (at most every 30 s).
  const keys = createRemoteJWKSet(new URL('/oauth/jwks', config.ACCOUNTS_URL), {
    cacheMaxAge: 10 * 60_000,
    cooldownDuration: 30_000,
    timeoutDuration: 5_000,
  })
  const verify = createTokenVerifier({ issuer: issuerOf(config.PUBLIC_URL), keys, revocations })

  const upstreams: Record<Upstream, ReturnType<typeof createProxy>> = {
    accounts: createProxy(config.ACCOUNTS_URL, config.GATEWAY_UPSTREAM_SOCKETS, logger),
    push: createProxy(config.PUSH_URL, config.GATEWAY_UPSTREAM_SOCKETS, logger),
  }

  const app = createApp({
    logger,
    metrics: createMetrics('gateway'),
    readiness: { redis: () => redis.ping() },
  })
  const board = mountBullBoard(app, { config, verify, logger }) // before the route table: not a public API route
  const router = Router()
  for (const route of [...ROUTES].sort(bySpecificity)) {
    const check: RequestHandler = (req, _res, next) => {
      authenticate(route, req, verify).then(() => next(), next)
    }
    router[route.method.toLowerCase() as 'get'](route.path, check, upstreams[route.upstream].middleware)
  }
  app.use(router)
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.GATEWAY_HOST,
    async close() {
      for (const upstream of Object.values(upstreams)) upstream.close()
      await board.close()
      redis.disconnect()
    },
  })
  return { ...service, app }
}
