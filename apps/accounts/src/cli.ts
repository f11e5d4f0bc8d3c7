/**
 * Roost's admin command line, in the style of Mastodon's `tootctl accounts …`:
 *
 *   npm run roost -- accounts create NAME --email E [--password P] [--role user|moderator|admin] [--approve]
 *   npm run roost -- accounts approve NAME
 *   npm run roost -- accounts confirm NAME
 *   npm run roost -- accounts suspend NAME
 *   npm run roost -- accounts unsuspend NAME
 *   npm run roost -- accounts role NAME user|moderator|admin
 *
 * It talks to Postgres (and, to suspend, Redis) directly from DATABASE_URL, REDIS_URL and REDIS_PREFIX, so it
 * needs none of the service's secrets. Events it records (a suspension) are published by the accounts worker. Exit codes: 0 done, 1 refused (unknown account, invalid input),
 * 2 wrong usage.
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { RevocationList } from '@roost/auth'
import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createRedis } from '@roost/events'
import { baseEnv, HttpError, parseConfig } from '@roost/service'
import type { BaseConfig } from '@roost/service'
import { SCHEMA } from './db/migrations'
import { createUser } from './users/create'
import type { ModerationContext, Role } from './users/moderation'
import {
  approveUser,
  confirmUser,
  ROLES,
  setRole,
  suspendAccount,
  unsuspendAccount,
} from './users/moderation'
import { validateSignUp } from './users/sign-up'

const USAGE = `Usage: roost accounts <command>
  create NAME --email E [--password P] [--role user|moderator|admin] [--approve]
  approve NAME      let a pending sign-up in
  confirm NAME      mark the e-mail address as confirmed
  suspend NAME      suspend the account and revoke its tokens
  unsuspend NAME
  role NAME ROLE    ROLE: user, moderator or admin`

/** A problem the operator can fix: printed without a stack trace. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}

const usage = (why: string) => new CliError(`${why}\n\n${USAGE}`, 2)

const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value)

async function accountIdOf(db: Knex, username: string): Promise<string> {
  const row = await db('accounts').whereRaw('lower(username) = lower(?)', [username]).select('id').first()
  if (!row) throw new CliError(`No account named ${username}`)
  return row.id
}

/** Moderation with Redis: suspension revokes tokens in the revocation list. */
async function withModeration(config: BaseConfig, db: Knex, run: (ctx: ModerationContext) => Promise<void>) {
  const redis = createRedis(config.REDIS_URL)
  try {
    await run({ db, revocations: new RevocationList(redis, config.REDIS_PREFIX) })
  } finally {
    await redis.quit().catch(() => redis.disconnect())
  }
}

async function run(argv: string[], config: BaseConfig, db: Knex): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      approve: { type: 'boolean' },
    },
  })
  const [group, command, name, extra] = positionals
  if (group !== 'accounts' || !command) throw usage('Unknown command.')
  if (!name) throw usage('A username is required.')

  switch (command) {
    case 'create': {
      const role = values.role ?? 'user'
      if (!isRole(role)) throw usage(`Unknown role ${role}.`)
      const password = values.password ?? randomBytes(16).toString('hex')
      const signUp = await validateSignUp(
        db,
        { REGISTRATIONS_MODE: 'open', REGISTRATIONS_REASON_REQUIRED: false, REGISTRATIONS_MIN_AGE: 0 },
        { username: name, email: values.email, password, agreement: true },
        { allowReserved: true },
      )
      await createUser(db, { ...signUp, role, approved: values.approve ?? false })
      return values.password ? 'OK' : `OK\nNew password: ${password}`
    }
    case 'approve':
      if (!(await approveUser(db, await accountIdOf(db, name)))) throw new CliError(`${name} is not pending`)
      return 'OK'
    case 'confirm':
      await confirmUser(db, await accountIdOf(db, name))
      return 'OK'
    case 'suspend': {
      const id = await accountIdOf(db, name)
      await withModeration(config, db, (ctx) => suspendAccount(ctx, id))
      return 'OK'
    }
    case 'unsuspend':
      await unsuspendAccount(db, await accountIdOf(db, name))
      return 'OK'
    case 'role': {
      if (!extra || !isRole(extra)) throw usage(`Unknown role ${extra ?? ''}.`)
      await setRole(db, await accountIdOf(db, name), extra)
      return 'OK'
    }
    default:
      throw usage(`Unknown command ${command}.`)
  }
}

/** Runs one command and answers the process exit code; messages go to stdout (success) or stderr. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let db: Knex | undefined
  try {
    const config = parseConfig(baseEnv, env)
    db = createDatabase(config.DATABASE_URL, SCHEMA, { min: 0, max: 2 })
    console.log(await run(argv, config, db))
    return 0
  } catch (err) {
    if (err instanceof CliError) {
      console.error(err.message)
      return err.exitCode
    }
    if (err instanceof HttpError) {
      // A validation failure from the sign-up rules: name each bad parameter.
      const details = (err.body.details ?? {}) as Record<string, { description: string }[]>
      const lines = Object.entries(details).map(
        ([p, errors]) => `  ${p}: ${errors.map((e) => e.description).join(', ')}`,
      )
      console.error([err.message, ...lines].join('\n'))
      return 1
    }
    if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`${(err as Error).message}\n\n${USAGE}`)
      return 2
    }
    console.error(err instanceof Error ? err.message : err)
    return 1
  } finally {
    await db?.destroy()
  }
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then((code) => process.exit(code))
}
