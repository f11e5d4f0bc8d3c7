import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullPrefix, QUEUES } from '@roost/events'
import { bundle } from '../../bundle'
import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const ROOT = path.resolve(__dirname, '../../..')

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

/** Runs the CLI as an operator would, against this stack's database and Redis prefix. */
async function roost(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return roostWith({}, ...args)
}

/** The same, with more of the service's environment (PUBLIC_URL, for `accounts alias`). */
async function roostWith(
  more: Record<string, string | undefined>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: stack.env.DATABASE_URL,
    REDIS_URL: stack.env.REDIS_URL,
    REDIS_PREFIX: stack.env.REDIS_PREFIX,
    ...more,
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [await bundle('apps/accounts/src/cli.ts'), ...args],
      {
        cwd: ROOT,
        env,
      },
    )
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const signIn = (email: string, password: string) =>
  stack.registerApp('read').then((app) =>
    stack.api().post('/oauth/token').send({
      grant_type: 'password',
      client_id: app.client_id,
      client_secret: app.client_secret,
      username: email,
      password,
      scope: 'read',
    }),
  )

describe('roost accounts (CLI)', () => {
  it('creates an approved admin who can sign in and read their role', async () => {
    const out = await roost(
      'accounts',
      'create',
      'cli_admin',
      '--email',
      'cli@example.test',
      '--password',
      'secret password',
      '--role',
      'admin',
      '--approve',
    )
    expect(out).toMatchObject({ code: 0, stdout: 'OK\n' })
    const token = await signIn('cli@example.test', 'secret password').then((r) => r.body.access_token)
    const me = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set('Authorization', `Bearer ${token}`)
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ username: 'cli_admin', role: { name: 'Admin' } })
  })

  it('creates a pending user with a generated password, then approves them', async () => {
    const out = await roost('accounts', 'create', 'cli_pending', '--email', 'pending@example.test')
    expect(out.code).toBe(0)
    const password = /New password: (\S+)/.exec(out.stdout)?.[1]
    expect(password).toBeDefined()
    expect((await signIn('pending@example.test', password!)).status).toBe(400) // pending: cannot sign in
    expect((await roost('accounts', 'approve', 'cli_pending')).code).toBe(0)
    expect((await signIn('pending@example.test', password!)).status).toBe(200)
    const again = await roost('accounts', 'approve', 'cli_pending')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/not pending/)
  })

  it('changes roles', async () => {
    const u = await stack.createUser({ username: 'cli_mod' })
    expect((await roost('accounts', 'role', 'cli_mod', 'moderator')).code).toBe(0)
    expect((await stack.accounts.ctx.db('users').where({ id: u.userId }).first()).role).toBe('moderator')
    const bad = await roost('accounts', 'role', 'cli_mod', 'emperor')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/Unknown role emperor/)
  })

  it('suspends: tokens revoked and account.suspended published to the queue', async () => {
    const u = await stack.createUser({ username: 'cli_victim' })
    const token = await stack.userToken('read', u)
    expect((await roost('accounts', 'suspend', 'cli_victim')).code).toBe(0)
    const res = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set('Authorization', `Bearer ${token}`)
    expect(res.status).toBe(401)
    const redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
    const queue = new Queue(QUEUES.accountEvents, {
      connection: redis,
      prefix: bullPrefix(stack.env.REDIS_PREFIX!),
    })
    try {
      // The CLI records the event in the outbox; the accounts worker publishes it.
      await stack.drain()
      const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
      expect(
        jobs.find((j) => j.name === 'account.suspended' && j.data.accountId === u.accountId)?.data,
      ).toEqual({
        event: 'account.suspended',
        userId: u.userId,
        accountId: u.accountId,
      })
    } finally {
      await queue.close()
      await redis.quit().catch(() => redis.disconnect())
    }
    expect((await stack.api().get(`/api/v1/accounts/${u.accountId}`)).body.suspended).toBe(true)
    expect((await roost('accounts', 'unsuspend', 'cli_victim')).code).toBe(0)
    expect((await stack.api().get(`/api/v1/accounts/${u.accountId}`)).body.suspended).toBeUndefined()
  })

  it('sets and removes an alias (alsoKnownAs), which lets the aliased account move', async () => {
    const old = await stack.createUser({ username: 'cli_old' })
    await stack.createUser({ username: 'cli_new' })
    const withUrl = { PUBLIC_URL: stack.url }
    const actor = async (name: string) =>
      (await stack.api().get(`/users/${name}`).set('Accept', 'application/activity+json').expect(200)).body
    const set = await roostWith(withUrl, 'accounts', 'alias', 'cli_new', 'cli_old')
    expect(set).toMatchObject({ code: 0, stdout: `OK\n${stack.url}/users/cli_old\n` })
    expect((await actor('cli_new')).alsoKnownAs).toEqual([`${stack.url}/users/cli_old`])
    // The same alias twice is kept once; the domain of this server names a local account too.
    const host = new URL(stack.url).host
    expect((await roostWith(withUrl, 'accounts', 'alias', 'cli_new', `cli_old@${host}`)).stdout).toBe(
      `OK\n${stack.url}/users/cli_old\n`,
    )
    // Refused: itself, a local account without PUBLIC_URL, a remote account not known here, no ACCT.
    expect(await roostWith(withUrl, 'accounts', 'alias', 'cli_new', 'cli_new')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/cannot be its own alias/),
    })
    expect(await roost('accounts', 'alias', 'cli_new', 'cli_old')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/PUBLIC_URL is needed/),
    })
    expect(
      await roostWith(withUrl, 'accounts', 'alias', 'cli_new', 'someone@elsewhere.example'),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/No account someone@elsewhere.example is known here/),
    })
    expect((await roost('accounts', 'alias', 'cli_new')).code).toBe(2)
    // The alias is what a move needs: cli_old moves to cli_new.
    const token = await stack.userToken('read write', old)
    const moved = await stack
      .api()
      .post('/api/v1/accounts/move')
      .set('Authorization', `Bearer ${token}`)
      .send({ acct: 'cli_new', current_password: old.password })
    expect([moved.status, moved.body]).toEqual([200, { moved_to: 'cli_new' }])
    // --remove takes it away.
    expect(await roostWith(withUrl, 'accounts', 'alias', 'cli_new', 'cli_old', '--remove')).toMatchObject({
      code: 0,
      stdout: 'OK\n',
    })
    expect((await actor('cli_new')).alsoKnownAs).toBeUndefined()
  })

  it('fails clearly: unknown account, invalid input, bad usage', async () => {
    const unknown = await roost('accounts', 'approve', 'nobody_here')
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/No account named nobody_here/) })
    const invalid = await roost('accounts', 'create', 'bad name', '--email', 'nope', '--password', 'x')
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/Validation failed/)
    expect(invalid.stderr).toMatch(/email: is invalid/)
    expect((await roost()).code).toBe(2)
    expect((await roost('accounts', 'explode', 'x')).code).toBe(2)
    expect((await roost('accounts', 'create', 'x', '--frobnicate')).code).toBe(2)
  })
})
