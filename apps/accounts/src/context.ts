import type { Redis } from 'ioredis'
import type { RevocationList, TokenVerifier } from '@roost/auth'
import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'
import type { AccountsConfig } from './config'
import type { SigningKeys } from './oauth/keys'
import type { OutboxRelay } from './outbox/relay'

/** What the accounts service's handlers share: built once in service.ts. */
export interface AccountsContext {
  config: AccountsConfig
  db: Knex
  redis: Redis
  logger: Logger
  keys: SigningKeys
  verify: TokenVerifier
  revocations: RevocationList
  outbox: OutboxRelay
}
