import express from 'express'
import { Redis } from 'ioredis'
import { createTokenVerifier, issuerOf, LoginRefusals, RevocationList } from '@roost/auth'
import { serviceRoutes } from '@roost/routes'
import { createDatabase, migrateSchema } from '@roost/db'
import { bodyParsers, createApp, createLogger, createMetrics, finishApp, lifecycle } from '@roost/service'
import type { AccountsConfig } from './config'
import type { AccountsContext } from './context'
import { migrations, SCHEMA } from './db/migrations'
import { publishIpRules } from './ip_blocks/rules'
import { publishAllLoginStates } from './users/login-state'
import { createFeedStore } from './feeds/store'
import { createFederation } from './federation/transport/client'
import { urlsOf } from './entities/account'
import { createStreamingPublisher } from './streaming/publisher'
import { publishAllListOwners } from './streaming/list-owners'
import { loadSigningKeys } from './oauth/keys'
import { accountsRoutes } from './routes'
import { createReplica } from './replica'
import { mediaFilesOf } from './media/files'
import { VIDEO_LIMIT } from './media/av'

export { SCHEMA }

export const migrateAccounts = (databaseUrl: string) => migrateSchema(databaseUrl, SCHEMA, migrations)

/** The accounts service: the OAuth server, accounts, relationships, statuses and notifications. */
export async function createAccountsService(config: AccountsConfig) {
  const logger = createLogger('accounts', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA, undefined, {
    preparedStatements: config.PREPARED_STATEMENTS,
  })
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true })
  await redis.connect()
  const keys = await loadSigningKeys(config.OAUTH_SIGNING_KEYS, issuerOf(config.PUBLIC_URL))
  const revocations = new RevocationList(redis, config.REDIS_PREFIX)
  const verify = createTokenVerifier({
    issuer: issuerOf(config.PUBLIC_URL),
    keys: keys.localKeySet,
    revocations,
    gatewaySecret: config.GATEWAY_SECRET,
  })
  const feeds = createFeedStore(redis, config.REDIS_PREFIX)
  const logins = new LoginRefusals(redis, config.REDIS_PREFIX)
  const federation = createFederation({ db, config, logger })
  const streaming = createStreamingPublisher({
    db,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    urls: urlsOf(config),
    logger,
  })
  const replica = createReplica(config, db)
  const ctx: AccountsContext = {
    config,
    db,
    replica,
    redis,
    logger,
    keys,
    verify,
    revocations,
    logins,
    feeds,
    federation,
    streaming,
    media: mediaFilesOf(config),
  }

  const app = createApp({
    logger,
    metrics: createMetrics('accounts'),
    readiness: { postgres: () => db.raw('select 1'), redis: () => redis.ping() },
  })
  // Inboxes read the body as it came: its Digest is signed (docs/federation.md, "Inboxes"); 1 MB as Mastodon.
  app.use(['/inbox', '/users/:username/inbox'], express.raw({ type: () => true, limit: '1mb' }))
  // Up to Mastodon's VIDEO_LIMIT, the largest upload (docs/media.md, "Video, audio and GIFs"); a too large image
  // still gets the media code's 422 (16 MB, docs/media.md, "Images") rather than the parser's 413.
  app.use(bodyParsers({ fileBytes: VIDEO_LIMIT }))

  const api = serviceRoutes('accounts', verify)
  accountsRoutes(api, ctx)
  api.mount(app)
  finishApp(app)

  let watchdog: NodeJS.Timeout | undefined
  /**
   * Publishes to Redis what the gateways and services enforce from it and Postgres holds: revoked tokens, IP
   * rules, login refusals, list owners (streaming); the revocation list's marker last, once all is in
   * (docs/security.md).
   */
  async function republishSecurityState() {
    const revoked = await db('oauth_access_tokens').whereNotNull('revoked_at').pluck('id')
    for (let i = 0; i < revoked.length; i += 1000) await revocations.revoke(...revoked.slice(i, i + 1000))
    await publishIpRules(ctx)
    await publishAllLoginStates(ctx)
    await publishAllListOwners(ctx)
    await revocations.markComplete()
    logger.info({ revoked: revoked.length }, 'security state published to Redis')
  }

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    async afterStart() {
      await republishSecurityState()
      // Redis may lose its data while running (a restart without persistence, a failover to an empty replica):
      // the revocation list's marker says so, and everything Postgres holds the truth of is published again.
      watchdog = setInterval(() => {
        revocations
          .isComplete()
          .then(
            (complete) => (complete ? undefined : republishSecurityState()),
            () => undefined, // Redis unreachable: nothing to repair yet; readiness reports it
          )
          .catch((err) => logger.error({ err }, 'could not republish the security state to Redis'))
      }, 1000)
      watchdog.unref()
    },
    async close() {
      clearInterval(watchdog)
      federation.close()
      ctx.media.close?.()
      if (replica !== db) await replica.destroy()
      await db.destroy()
      await redis.quit().catch(() => redis.disconnect())
    },
  })
  return { ...service, app, ctx, routes: api.routes }
}

export type AccountsService = Awaited<ReturnType<typeof createAccountsService>>
