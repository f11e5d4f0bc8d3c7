import { Redis } from 'ioredis'
import { createRemoteJWKSet } from 'jose'
import { createTokenVerifier, issuerOf, LoginRefusals, RevocationList } from '@roost/auth'
import { serviceRoutes } from '@roost/routes'
import { createDatabase, migrateSchema } from '@roost/db'
import { bodyParsers, createApp, createLogger, createMetrics, finishApp, lifecycle } from '@roost/service'
import type { PushConfig } from './config'
import { subscriptionRoutes } from './api/v1/push/subscription'
import { migrations } from './db/migrations'

export const SCHEMA = 'push'

export const migratePush = (databaseUrl: string) => migrateSchema(databaseUrl, SCHEMA, migrations)

/** The push subscription API (`/api/v1/push/subscription`). The workers are in worker.ts. */
export async function createPushService(config: PushConfig) {
  const logger = createLogger('push', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA, undefined, {
    preparedStatements: config.PREPARED_STATEMENTS,
  })
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true })
  await redis.connect()
  const verify = createTokenVerifier({
    issuer: issuerOf(config.PUBLIC_URL),
    keys: createRemoteJWKSet(new URL('/oauth/jwks', config.ACCOUNTS_URL), { cooldownDuration: 30_000 }),
    revocations: new RevocationList(redis, config.REDIS_PREFIX),
    gatewaySecret: config.GATEWAY_SECRET,
  })

  const app = createApp({
    logger,
    metrics: createMetrics('push'),
    readiness: { postgres: () => db.raw('select 1'), redis: () => redis.ping() },
  })
  app.use(bodyParsers())
  const api = serviceRoutes('push', verify)
  subscriptionRoutes(api, db, config, new LoginRefusals(redis, config.REDIS_PREFIX))
  api.mount(app)
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    async close() {
      await db.destroy()
      await redis.quit().catch(() => redis.disconnect())
    },
  })
  return { ...service, app, db, routes: api.routes }
}

export type PushService = Awaited<ReturnType<typeof createPushService>>
