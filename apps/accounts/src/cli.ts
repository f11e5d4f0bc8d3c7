/**
 * Roost's admin command line, in the style of Mastodon's `tootctl accounts …`:
 *
 *   npm run roost -- accounts create NAME --email E [--password P] [--role user|moderator|admin|owner] [--approve]
 *   npm run roost -- accounts approve NAME
 *   npm run roost -- accounts confirm NAME
 *   npm run roost -- accounts suspend NAME
 *   npm run roost -- accounts unsuspend NAME
 *   npm run roost -- accounts role NAME user|moderator|admin|owner
 *   npm run roost -- accounts disable-2fa NAME
 *   npm run roost -- accounts alias NAME ACCT [--remove]
 *   npm run roost -- rules list | add TEXT [--hint H] [--priority N] | remove ID
 *   npm run roost -- announcements list | create TEXT [--starts-at T] [--ends-at T] [--all-day] [--draft]
 *   npm run roost -- announcements publish ID | unpublish ID | delete ID
 *   npm run roost -- media remove [--days N] [--dry-run] | remove-orphans [--dry-run] | strip-metadata
 *   npm run roost -- emoji import FILE|DIR [--category C] [--unlisted] | list | remove SHORTCODE
 *
 * It talks to Postgres (and, to suspend, Redis) directly from DATABASE_URL, REDIS_URL and REDIS_PREFIX, so it
 * needs none of the service's secrets. Events it records (a suspension) are published by the accounts worker. Exit codes: 0 done, 1 refused (unknown account, invalid input),
 * 2 wrong usage.
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { LoginRefusals, RevocationList } from '@roost/auth'
import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createRedis } from '@roost/events'
import { Invalid, NotFound } from '@roost/errors'
import { baseEnv, parseConfig } from '@roost/service'
import type { BaseConfig } from '@roost/service'
import { SCHEMA } from './db/migrations'
import { createAnnouncement, publishAnnouncement, withdrawAnnouncement } from './domain/announcements'
import type { AnnouncementRow } from './db/rows'
import { activeRules, addRule, removeRule } from './domain/rules'
import { parseId } from './domain/records'
import { generateRsaKeyPair } from './federation/transport/keys'
import { createUser } from './domain/users'
import type { Role } from './domain/moderation'
import {
  approveUser,
  confirmUser,
  ROLES,
  setRole,
  suspendAccount,
  unsuspendAccount,
} from './domain/moderation'
import { MEDIA_OPTIONS, MEDIA_USAGE, mediaCommand } from './media/commands'
import { EMOJI_OPTIONS, EMOJI_USAGE, emojiCommand } from './emoji-commands'
import { saveAliases } from './domain/moves'
import { validateSignUp } from './users/sign-up'
import { publishLoginState } from './users/login-state'
import { hashPassword } from './domain/password-hashes'
import { adminDisableTwoFactor } from './domain/two_factor'

const USAGE = `Usage: roost accounts <command>
  create NAME --email E [--password P] [--role user|moderator|admin|owner] [--approve]
  approve NAME      let a pending sign-up in
  confirm NAME      mark the e-mail address as confirmed
  suspend NAME      suspend the account and revoke its tokens
  unsuspend NAME
  role NAME ROLE    ROLE: user, moderator, admin or owner
  disable-2fa NAME  turn two-factor sign-in off (every factor lost); the user is told by mail
  alias NAME ACCT [--remove]
                    NAME is also known as ACCT (user, user@domain, or an actor URL), served as its
                    actor's alsoKnownAs so that ACCT may move to NAME; a remote ACCT must be known
                    here already (looked up once by search); a local one needs PUBLIC_URL
       roost rules <command>
  list              the server's rules (GET /api/v1/instance/rules), with their ids
  add TEXT [--hint H] [--priority N]
  remove ID
       roost announcements <command>
  list              every announcement, published or not
  create TEXT [--starts-at ISO-TIME] [--ends-at ISO-TIME] [--all-day] [--draft]
  publish ID | unpublish ID | delete ID
${MEDIA_USAGE}
${EMOJI_USAGE}`

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
  const row = await db('accounts')
    .whereRaw('lower(username) = lower(?)', [username])
    .whereNull('domain')
    .select('id')
    .first()
  if (!row) throw new CliError(`No account named ${username}`)
  return row.id
}

interface ModerationContext {
  db: Knex
  revocations: RevocationList
  logins: LoginRefusals
}

/** Moderation with Redis: suspension revokes tokens in the revocation list, login states are published there. */
async function withModeration<T>(config: BaseConfig, db: Knex, run: (ctx: ModerationContext) => Promise<T>) {
  const redis = createRedis(config.REDIS_URL)
  try {
    return await run({
      db,
      revocations: new RevocationList(redis, config.REDIS_PREFIX),
      logins: new LoginRefusals(redis, config.REDIS_PREFIX),
    })
  } finally {
    await redis.quit().catch(() => redis.disconnect())
  }
}

/** A moderation change in one transaction, then the account's login state published once it has committed. */
const moderate = <T>(
  config: BaseConfig,
  db: Knex,
  accountId: string,
  change: (trx: Knex, ctx: ModerationContext) => Promise<T>,
) =>
  withModeration(config, db, async (ctx) => {
    const result = await db.transaction((trx) => change(trx, ctx))
    await publishLoginState(ctx, accountId)
    return result
  })

async function run(
  argv: string[],
  config: BaseConfig,
  db: Knex,
  env: Record<string, string | undefined>,
): Promise<string> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      approve: { type: 'boolean' },
      hint: { type: 'string' },
      priority: { type: 'string' },
      'starts-at': { type: 'string' },
      'ends-at': { type: 'string' },
      'all-day': { type: 'boolean' },
      draft: { type: 'boolean' },
      remove: { type: 'boolean' },
      ...MEDIA_OPTIONS,
      ...EMOJI_OPTIONS,
    },
  })
  const [group, command, name, extra] = positionals
  if (group === 'rules') return rules(db, command, name, values)
  if (group === 'announcements') return announcements(db, command, name, values)
  if (group === 'media') return mediaCommand(command, values, db, env, usage)
  if (group === 'emoji') return emojiCommand(command, name, values, db, env, usage)
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
      const encryptedPassword = await hashPassword(signUp.password)
      const keys = await generateRsaKeyPair()
      const { accountId } = await db.transaction((trx) =>
        createUser(trx, { ...signUp, encryptedPassword, role, approved: values.approve ?? false, keys }),
      )
      await withModeration(config, db, (ctx) => publishLoginState(ctx, accountId))
      return values.password ? 'OK' : `OK\nNew password: ${password}`
    }
    case 'approve': {
      const id = await accountIdOf(db, name)
      const approved = await moderate(config, db, id, (trx) => approveUser(trx, id))
      if (!approved) throw new CliError(`${name} is not pending`)
      return 'OK'
    }
    case 'confirm': {
      const id = await accountIdOf(db, name)
      await moderate(config, db, id, (trx) => confirmUser(trx, id))
      return 'OK'
    }
    case 'suspend': {
      const id = await accountIdOf(db, name)
      await moderate(config, db, id, (trx, ctx) => suspendAccount(trx, ctx.revocations, id))
      return 'OK'
    }
    case 'unsuspend': {
      const id = await accountIdOf(db, name)
      await moderate(config, db, id, (trx) => unsuspendAccount(trx, id))
      return 'OK'
    }
    case 'role': {
      if (!extra || !isRole(extra)) throw usage(`Unknown role ${extra ?? ''}.`)
      await setRole(db, await accountIdOf(db, name), extra)
      return 'OK'
    }
    case 'disable-2fa': {
      const id = await accountIdOf(db, name)
      const user = await db('users').where({ account_id: id }).first('id')
      if (!user) throw new CliError(`${name} has no sign-in`)
      const done = await db.transaction((trx) => adminDisableTwoFactor(trx, user.id))
      if (!done) throw new CliError(`${name} does not use two-factor sign-in`)
      return 'OK'
    }
    case 'alias': {
      if (!extra) throw usage('An ACCT to name as an alias is required.')
      const id = await accountIdOf(db, name)
      const uri = await aliasUriOf(db, env, extra)
      const current: string[] =
        (await db('accounts').where({ id }).first('also_known_as')).also_known_as ?? []
      if (uri === (await aliasUriOf(db, env, name).catch(() => undefined)))
        throw new CliError('An account cannot be its own alias')
      const aliases = values.remove ? current.filter((u) => u !== uri) : [...current, uri]
      const row = await db.transaction((trx) => saveAliases(trx, id, aliases))
      return ['OK', ...(row.also_known_as ?? [])].join('\n')
    }
    default:
      throw usage(`Unknown command ${command}.`)
  }
}

/**
 * The ActivityPub id `acct` names, as `POST /api/v1/accounts/aliases` stores it: an actor URL as given (when known
 * here), `user@domain` of a remote account known here, or a local `user` (its id built from PUBLIC_URL). The CLI
 * does not fetch other servers: a remote account is looked up first by search (docs/federation.md).
 */
async function aliasUriOf(db: Knex, env: Record<string, string | undefined>, acct: string): Promise<string> {
  const publicUrl = env.PUBLIC_URL?.replace(/\/$/, '')
  const localHost = publicUrl ? new URL(publicUrl).host.toLowerCase() : undefined
  if (/^https?:\/\//.test(acct)) {
    const known = await db('accounts').where({ uri: acct }).first('id')
    if (known || (publicUrl && acct.startsWith(`${publicUrl}/users/`))) return acct
    throw new CliError(`No account ${acct} is known here: look it up first (search with resolve=true)`)
  }
  const [username = '', domain] = acct.replace(/^@/, '').split('@')
  if (!domain || domain.toLowerCase() === localHost) {
    await accountIdOf(db, username)
    if (!publicUrl) throw new CliError(`PUBLIC_URL is needed to name the local account ${username}`)
    const row = await db('accounts')
      .whereRaw('lower(username) = lower(?)', [username])
      .whereNull('domain')
      .first('username')
    return `${publicUrl}/users/${row.username as string}`
  }
  const remote = await db('accounts')
    .whereRaw('lower(username) = lower(?)', [username])
    .whereRaw('lower(domain) = lower(?)', [domain])
    .first('uri')
  if (!remote?.uri)
    throw new CliError(
      `No account ${username}@${domain} is known here: look it up first (search with resolve=true)`,
    )
  return remote.uri as string
}

type Options = Record<string, string | boolean | undefined>

const idArgument = (value: string | undefined) => {
  const id = parseId(value)
  if (!id) throw usage('An id is required.')
  return id
}

/** `roost rules …`: the rules GET /api/v1/instance/rules lists and reports cite. */
async function rules(db: Knex, command: string | undefined, arg: string | undefined, values: Options) {
  switch (command) {
    case 'list':
      return (await activeRules(db))
        .map((r) => `${r.id}\t${r.text}${r.hint ? ` (${r.hint})` : ''}`)
        .join('\n')
    case 'add': {
      if (!arg?.trim()) throw usage('The rule text is required.')
      const priority = values.priority === undefined ? undefined : Number(values.priority)
      if (priority !== undefined && !Number.isInteger(priority))
        throw usage('--priority takes a whole number.')
      const rule = await addRule(db, { text: arg, hint: values.hint as string | undefined, priority })
      return `OK ${rule.id}`
    }
    case 'remove':
      if (!(await removeRule(db, idArgument(arg)))) throw new CliError(`No rule ${arg}`)
      return 'OK'
    default:
      throw usage(`Unknown command ${command ?? ''}.`)
  }
}

const time = (value: unknown, option: string) => {
  if (value === undefined) return undefined
  const date = new Date(String(value))
  if (Number.isNaN(date.getTime())) throw usage(`--${option} takes a time such as 2026-12-24T18:00:00Z.`)
  return date
}

/** `roost announcements …`: what GET /api/v1/announcements shows; publishing reaches the streaming API. */
async function announcements(
  db: Knex,
  command: string | undefined,
  arg: string | undefined,
  values: Options,
) {
  switch (command) {
    case 'list': {
      const rows: AnnouncementRow[] = await db('announcements').orderBy('id')
      return rows
        .map((a) => `${a.id}\t${a.published ? 'published' : 'draft'}\t${a.text.replace(/\s+/g, ' ')}`)
        .join('\n')
    }
    case 'create': {
      if (!arg) throw usage('The announcement text is required.')
      const row = await db.transaction((trx) =>
        createAnnouncement(trx, {
          text: arg,
          startsAt: time(values['starts-at'], 'starts-at'),
          endsAt: time(values['ends-at'], 'ends-at'),
          allDay: values['all-day'] === true,
          draft: values.draft === true,
        }),
      )
      return `OK ${row.id}`
    }
    case 'publish': {
      const id = idArgument(arg)
      await db.transaction((trx) => publishAnnouncement(trx, id))
      return 'OK'
    }
    case 'unpublish':
    case 'delete': {
      const id = idArgument(arg)
      await db.transaction((trx) => withdrawAnnouncement(trx, id, { delete: command === 'delete' }))
      return 'OK'
    }
    default:
      throw usage(`Unknown command ${command ?? ''}.`)
  }
}

/** Runs one command and answers the process exit code; messages go to stdout (success) or stderr. */
export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let db: Knex | undefined
  try {
    const config = parseConfig(baseEnv, env)
    db = createDatabase(config.DATABASE_URL, SCHEMA, { min: 0, max: 2 })
    console.log(await run(argv, config, db, env))
    return 0
  } catch (err) {
    if (err instanceof CliError) {
      console.error(err.message)
      return err.exitCode
    }
    if (err instanceof NotFound) {
      console.error(err.message)
      return 1
    }
    if (err instanceof Invalid) {
      // A validation failure (the sign-up rules give details): name each bad parameter.
      const lines = Object.entries(err.details ?? {}).map(
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
