import { spawn, execFileSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { freePort } from '@roost/testing'

const ROOT = path.resolve(__dirname, '../..')
const ADMIN = { email: 'root@roost.test', password: 'a-long-admin-password' }

/**
 * `npm start` (or, with `dev`, `npm run dev`) as a user runs it, with Postgres and Redis "configured" where
 * nothing listens.
 */
async function start(dataDir: string, ports: Record<string, number>, mode: 'bundles' | 'dev' = 'bundles') {
  const args = ['--import', 'tsx', 'scripts/start.ts', ...(mode === 'dev' ? ['--dev'] : [])]
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      ROOST_DATA_DIR: dataDir,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${ports.deadPostgres}/roost`,
      REDIS_URL: `redis://127.0.0.1:${ports.deadRedis}`,
      GATEWAY_PORT: String(ports.gateway),
      GATEWAY_METRICS_PORT: String(ports.gatewayMetrics),
      ACCOUNTS_PORT: String(ports.accounts),
      PUSH_PORT: String(ports.push),
      PUSH_WORKER_PORT: String(ports.worker),
      ACCOUNTS_WORKER_PORT: String(ports.accountsWorker),
      STREAMING_PORT: String(ports.streaming),
      PUBLIC_URL: `http://127.0.0.1:${ports.gateway}`,
      ROOST_ADMIN_EMAIL: ADMIN.email,
      ROOST_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      LOG_DESTINATION: path.join(dataDir, 'services.log'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(child)
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const deadline = Date.now() + 200_000 // six processes on a loaded 2-core machine (tsx compiles in dev mode)
  while (!output.includes('Roost is running.')) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output}`)
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { child, output: () => output }
}

/** A /proc file of each Roost process started by `npm start` (`<data dir>/processes.json`), split at NULs. */
const procFiles = (dataDir: string, file: 'cmdline' | 'environ') =>
  Object.fromEntries(
    Object.entries(
      JSON.parse(readFileSync(path.join(dataDir, 'processes.json'), 'utf8')) as Record<string, number>,
    )
      .filter(([name]) => name !== 'postgres' && name !== 'redis')
      .map(([name, pid]) => [name, readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0')]),
  )

/** What each process runs: its arguments after `node`. */
const commandLines = (dataDir: string) =>
  Object.fromEntries(
    Object.entries(procFiles(dataDir, 'cmdline')).map(([name, args]) => [name, args.slice(1, -1).join(' ')]),
  )

async function stop(child: ChildProcess) {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.kill('SIGINT')
  return exited
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })

/** Processes whose command line names the data directory (Postgres) or the embedded Redis's port. */
const leftovers = (dataDir: string, redisPort: number) =>
  execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(dataDir) || line.includes(`redis-server 127.0.0.1:${redisPort}`))

let dataDir: string
const running: ChildProcess[] = []
beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'roost-start-'))
})
afterAll(async () => {
  // A failed assertion must not leave servers behind.
  for (const child of running) if (child.exitCode === null && child.signalCode === null) await stop(child)
  rmSync(dataDir, { recursive: true, force: true })
})

it('builds and runs the bundles, boots embedded Postgres and Redis, serves clients through the gateway, stops on SIGINT and reuses its data (then in development mode)', async () => {
  const ports = {
    deadPostgres: await freePort(),
    deadRedis: await freePort(),
    gateway: await freePort(),
    gatewayMetrics: await freePort(),
    accounts: await freePort(),
    push: await freePort(),
    worker: await freePort(),
    accountsWorker: await freePort(),
    streaming: await freePort(),
  }
  const first = await start(dataDir, ports)
  expect(first.output()).toContain('Postgres: nothing answers')
  expect(first.output()).toContain('Redis: nothing answers')
  expect(first.output()).toContain(`Created the admin admin <${ADMIN.email}>`)
  expect(first.output()).toMatch(/Built the bundles in [\d.]+ s/)
  // What production runs: node on the bundles of `npm run build`, no tsx.
  const bundles = commandLines(dataDir)
  expect(bundles).toMatchObject({
    gateway: 'apps/gateway/dist/main.js',
    accounts: 'apps/accounts/dist/main.js',
    'accounts-worker': 'apps/accounts/dist/worker-main.js',
    push: 'apps/push/dist/main.js',
    'push-worker': 'apps/push/dist/worker-main.js',
  })
  for (const command of Object.values(bundles)) expect(command).toMatch(/^apps\/[\w-]+\/dist\/[\w-]+\.js$/)
  // Each with the heap limits of docs/performance.md, "Memory" (an inherited NODE_OPTIONS would come after them).
  const environments = Object.values(procFiles(dataDir, 'environ'))
  expect(environments).toHaveLength(6)
  for (const environment of environments)
    expect(environment.find((v) => v.startsWith('NODE_OPTIONS='))).toMatch(
      /^NODE_OPTIONS=--max-old-space-size=256 --max-semi-space-size=4\b/,
    )
  const startedAt = (what: string) =>
    Number(first.output().match(new RegExp(`${what}: started at \\w+://[^:]+:(\\d+)`))?.[1])
  const pgPort = startedAt('Postgres')
  const redisPort = startedAt('Redis')
  expect(pgPort).toBeGreaterThan(0)
  expect(redisPort).toBeGreaterThan(0)

  const api = () => request(`http://127.0.0.1:${ports.gateway}`)
  const app = await api()
    .post('/api/v1/apps')
    .send({
      client_name: 'start test',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read admin:read',
    })
    .expect(200)
  const appToken = await api()
    .post('/oauth/token')
    .send({
      grant_type: 'client_credentials',
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
    })
    .expect(200)
  await api()
    .get('/api/v1/apps/verify_credentials')
    .set('Authorization', `Bearer ${appToken.body.access_token}`)
    .expect(200, /start test/)
  const signIn = () =>
    api()
      .post('/oauth/token')
      .send({
        grant_type: 'password', // on by default in development
        client_id: app.body.client_id,
        client_secret: app.body.client_secret,
        username: ADMIN.email,
        password: ADMIN.password,
        scope: 'read admin:read',
      })
      .expect(200)
  const adminToken = (await signIn()).body.access_token as string
  // The queues live in the embedded Redis: the board reads them there.
  const board = await api()
    .get('/admin/queues/api/queues')
    .set('Authorization', `Bearer ${adminToken}`)
    .expect(200)
  expect(board.body.queues.map((q: { name: string }) => q.name)).toContain('notifications')
  // The streaming service runs too, behind the gateway.
  await api().get('/api/v1/streaming/health').expect(200, 'OK')

  expect(await stop(first.child)).toBe(0)
  expect(leftovers(dataDir, redisPort)).toEqual([])
  expect(existsSync(path.join(dataDir, 'processes.json'))).toBe(false)
  for (const port of [
    ports.gateway,
    ports.accounts,
    ports.accountsWorker,
    ports.worker,
    ports.streaming,
    pgPort,
    redisPort,
  ])
    expect(await portIsFree(port)).toBe(true)

  // A second start keeps the keys, the database and the admin: the first run's token still works. It runs in
  // development mode (`npm run dev`): the sources under tsx, no build.
  const second = await start(dataDir, ports, 'dev')
  expect(second.output()).not.toContain('Built the bundles')
  expect(commandLines(dataDir).gateway).toBe('--import tsx apps/gateway/src/main.ts')
  expect(second.output()).not.toContain('Generated development keys')
  expect(second.output()).not.toContain('Created the admin')
  await api().get('/admin/queues/api/queues').set('Authorization', `Bearer ${adminToken}`).expect(200)
  await signIn()
  expect(await stop(second.child)).toBe(0)
  expect(leftovers(dataDir, redisPort)).toEqual([])
}, 480_000)
