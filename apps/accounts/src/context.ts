import type { Request, Response } from 'express'
import type { Redis } from 'ioredis'
import type { LoginRefusals, RevocationList, TokenVerifier } from '@roost/auth'
import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'
import type { AccountsConfig } from './config'
import type { Federation } from './federation/transport/client'
import type { FeedStore } from './feeds/store'
import type { MediaFiles } from './media/files'
import type { SigningKeys } from './oauth/keys'
import type { StreamingPublisher } from './streaming/publisher'

/** What the accounts service's handlers share: built once in service.ts. */
export interface AccountsContext {
  config: AccountsConfig
  db: Knex
  /**
   * For the heavy reads that tolerate a little lag: the read replica (REPLICA_DATABASE_URL), or `db` when there is
   * none. Handlers take it through readsFor (replica.ts), which keeps read-your-writes (docs/operations.md, "Read replica").
   */
  replica: Knex
  redis: Redis
  logger: Logger
  keys: SigningKeys
  verify: TokenVerifier
  revocations: RevocationList
  logins: LoginRefusals
  feeds: FeedStore
  /** Requests to other servers and the federation settings (docs/federation.md). */
  federation: Federation
  /** Live events the service itself causes (a conversation marked read); the worker publishes the rest. */
  streaming: StreamingPublisher
  /** Where uploaded and copied media files are kept (docs/media.md). */
  media: MediaFiles
}

export type AccountsHandler = (ctx: AccountsContext, req: Request, res: Response) => unknown

/** Binds handlers written as `(ctx, req, res)` to the service's context, for route registration. */
export const bindContext = (ctx: AccountsContext) => (fn: AccountsHandler) => (req: Request, res: Response) =>
  fn(ctx, req, res)
