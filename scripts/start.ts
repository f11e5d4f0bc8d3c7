// `npm start`: the whole of Roost on this machine, in one command. Uses Postgres and Redis at DATABASE_URL /
// REDIS_URL when they answer, otherwise runs its own under ROOST_DATA_DIR (default .data/); generates development
// keys once, migrates, ensures an admin, then runs gateway, accounts, its worker, push API, push worker and
// streaming until Ctrl-C. The processes run the bundles `npm run build` makes (apps/<app>/dist/*.js, built first: what production
// runs); `npm run dev` (`--dev`) runs the TypeScript sources with tsx instead. See docs/operations.md.
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { migrateAccounts } from '../apps/accounts/src/service'
import { migratePush } from '../apps/push/src/service'
import { ensureAdmin } from './dev/admin'
import { ensureFfmpeg } from './dev/ffmpeg'
import { ensureDatabase, postgresAnswers, startEmbeddedPostgres } from './dev/postgres'
import { redisAnswers, startEmbeddedRedis } from './dev/redis'
import { devSecrets } from './dev/secrets'
import { HEAP_OPTIONS, MALLOC_ENV } from './dev/heap'

const ROOT = path.resolve(__dirname, '..')
/** `--dev`: run the sources with tsx (no build step, stack traces in TypeScript); otherwise the bundles. */
const DEV = process.argv.includes('--dev')

/** The processes, their entry points and the port each serves (health and metrics included). */
const APPS = [
  { name: 'accounts', entry: 'apps/accounts/src/main.ts', portVar: 'ACCOUNTS_PORT', port: 3001 },
  {
    name: 'accounts-worker',
    entry: 'apps/accounts/src/worker-main.ts',
    portVar: 'ACCOUNTS_WORKER_PORT',
    port: 3004,
  },
  { name: 'push', entry: 'apps/push/src/main.ts', portVar: 'PUSH_PORT', port: 3002 },
  { name: 'push-worker', entry: 'apps/push/src/worker-main.ts', portVar: 'PUSH_WORKER_PORT', port: 3003 },
  { name: 'streaming', entry: 'apps/streaming/src/main.ts', portVar: 'STREAMING_PORT', port: 3005 },
  { name: 'gateway', entry: 'apps/gateway/src/main.ts', portVar: 'GATEWAY_PORT', port: 3000 },
] as const

const cleanups: (() => Promise<void> | void)[] = []
const children: { name: string; child: ChildProcess }[] = []
const started: (typeof APPS)[number][] = []
let stopping: Promise<void> | undefined
/** `<data dir>/processes.json`: the pid of every process started here (the bench reads their CPU and memory). */
let processesFile: string | undefined
const pids: Record<string, number> = {}

/** The bundle `npm run build` makes of an entry point: apps/<app>/src/x.ts → apps/<app>/dist/x.js. */
const bundleOf = (entry: string) => entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js')

/** `npm run build` (turbo → esbuild, a few seconds; unchanged apps come from turbo's cache). */
function buildBundles() {
  const started = Date.now()
  const turbo = path.join(ROOT, 'node_modules', '.bin', 'turbo')
  const result = spawnSync(turbo, ['run', 'build', '--output-logs=errors-only'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  if (result.status !== 0)
    throw new Error(
      `npm run build failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}`,
    )
  console.log(`Built the bundles in ${((Date.now() - started) / 1000).toFixed(1)} s (npm run build)`)
}

/** The web app's bundle alone (apps/web/build.mjs, well under a second), for `--dev`. */
function buildWeb() {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'apps', 'web', 'build.mjs')], {
    cwd: ROOT,
    stdio: 'inherit',
  })
  if (result.status !== 0) throw new Error(`building the web app failed (exit ${result.status})`)
}

function recordPid(name: string, pid: number | undefined) {
  if (!pid || !processesFile) return
  pids[name] = pid
  writeFileSync(processesFile, JSON.stringify(pids, null, 2) + '\n')
}

async function main() {
  const env: Record<string, string | undefined> = { ...process.env }
  const dataDir = path.resolve(ROOT, env.ROOST_DATA_DIR || '.data')
  mkdirSync(dataDir, { recursive: true })
  processesFile = path.join(dataDir, 'processes.json')
  rmSync(processesFile, { force: true })
  cleanups.push(() => rmSync(processesFile!, { force: true }))
  // As root, the embedded Postgres runs as `postgres`, which must be able to reach its directory inside.
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o711)

  // Development defaults; anything already in the environment wins.
  const defaults: Record<string, string> = {
    NODE_ENV: 'development',
    OAUTH_PASSWORD_GRANT: 'true',
    PUSH_ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8,::1',
    RATE_LIMITS: 'off',
    MEDIA_DIR: path.join(dataDir, 'media'),
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/roost',
    REDIS_URL: 'redis://127.0.0.1:6379',
  }
  for (const [key, value] of Object.entries(defaults)) env[key] ||= value
  for (const app of APPS) env[app.portVar] ||= String(app.port)
  env.GATEWAY_METRICS_PORT ||= '3009' // the gateway's /metrics is on this internal port, not its public one
  env.PUBLIC_URL ||= `http://localhost:${env.GATEWAY_PORT}`
  env.ACCOUNTS_URL ||= `http://127.0.0.1:${env.ACCOUNTS_PORT}`
  env.PUSH_URL ||= `http://127.0.0.1:${env.PUSH_PORT}`
  env.STREAMING_URL ||= `http://127.0.0.1:${env.STREAMING_PORT}`

  // The accounts service and its worker transcode video, audio and GIFs with them (docs/media.md).
  ensureFfmpeg()

  if (await postgresAnswers(env.DATABASE_URL!)) {
    console.log(`Postgres: using ${redactUrl(env.DATABASE_URL!)}`)
  } else {
    const port = await freePort()
    console.log(
      `Postgres: nothing answers at ${redactUrl(env.DATABASE_URL!)}; starting one in ${dataDir}/postgres`,
    )
    const postgres = startEmbeddedPostgres(path.join(dataDir, 'postgres'), port)
    cleanups.push(() => postgres.stop())
    env.DATABASE_URL = postgres.url
    recordPid('postgres', postmasterPid(path.join(dataDir, 'postgres')))
    console.log(`Postgres: started at ${postgres.url}`)
  }
  await ensureDatabase(env.DATABASE_URL!)

  if (await redisAnswers(env.REDIS_URL!)) {
    console.log(`Redis: using ${redactUrl(env.REDIS_URL!)}`)
  } else {
    const port = await freePort()
    console.log(`Redis: nothing answers at ${redactUrl(env.REDIS_URL!)}; starting one in ${dataDir}/redis`)
    const redis = startEmbeddedRedis(path.join(dataDir, 'redis'), port)
    cleanups.push(() => stopChild('redis', redis.child))
    env.REDIS_URL = redis.url
    recordPid('redis', redis.child.pid)
    await waitFor('redis', () => redisAnswers(redis.url), 15_000)
    console.log(`Redis: started at ${redis.url}`)
  }

  const secrets = await devSecrets(dataDir)
  for (const [key, value] of Object.entries(secrets)) env[key] ||= value

  for (const [schema, migrate] of [
    ['accounts', migrateAccounts],
    ['push', migratePush],
  ] as const) {
    const applied = await migrate(env.DATABASE_URL!)
    if (applied.length) console.log(`Migrated ${schema}: ${applied.join(', ')}`)
  }

  const admin = await ensureAdmin(env.DATABASE_URL!, env)
  if (admin.created)
    console.log(
      `Created the admin ${admin.username} <${admin.email}>` +
        (admin.generatedPassword
          ? ` with the password ${admin.generatedPassword} (shown once: keep it)`
          : ''),
    )
  else
    console.log(
      `Admin: ${admin.username} <${admin.email}> (already there; its password is the one set when it was created)`,
    )

  if (DEV) {
    console.log('Development mode: running the TypeScript sources with tsx')
    buildWeb() // the browser app has no sources to run as they are: always its bundle
  } else buildBundles() // the web app's (apps/web) included
  for (const app of APPS) {
    if (!existsSync(path.join(ROOT, app.entry))) {
      console.warn(`Not starting ${app.name}: ${app.entry} does not exist yet`)
      continue
    }
    // ROOST_NODE_ARGS: node flags for every process (`--cpu-prof`, which NODE_OPTIONS refuses; the bench uses it).
    const nodeArgs = (env.ROOST_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)
    const args = [...nodeArgs, ...(DEV ? ['--import', 'tsx', app.entry] : [bundleOf(app.entry)])]
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...MALLOC_ENV, ...env, NODE_OPTIONS: `${HEAP_OPTIONS} ${env.NODE_OPTIONS ?? ''}`.trim() },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true, // its own process group: Ctrl-C reaches it only through our orderly shutdown
    })
    children.push({ name: app.name, child })
    started.push(app)
    recordPid(app.name, child.pid)
    child.once('exit', (code, signal) => {
      if (stopping) return
      console.error(`${app.name} exited (${signal ?? code}); stopping everything`)
      void shutdown(1)
    })
    await waitFor(app.name, () => ready(`http://127.0.0.1:${env[app.portVar]}/health/ready`), 60_000)
  }

  const publicUrl = env.PUBLIC_URL!.replace(/\/+$/, '')
  console.log(`
Roost is running.
  API (Mastodon-compatible): ${publicUrl}/api/v1/…   (OAuth: ${publicUrl}/oauth/authorize)
  Streaming:                 ${publicUrl.replace(/^http/, 'ws')}/api/v1/streaming
  Bull Board (admins):       ${publicUrl}/admin/queues
  Metrics:                   ${started.map((a) => `${a.name} http://127.0.0.1:${env[a.name === 'gateway' ? 'GATEWAY_METRICS_PORT' : a.portVar]}/metrics`).join(', ')}
  Data:                      ${dataDir}
  Running:                   ${DEV ? 'the TypeScript sources with tsx (development mode)' : 'the bundles of npm run build (apps/*/dist)'}
Press Ctrl-C to stop.`)
}

async function shutdown(code: number) {
  stopping ??= (async () => {
    console.log('Stopping…')
    // The gateway first (no new requests), the services they depend on last.
    for (const { name, child } of [...children].reverse()) await stopChild(name, child)
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup()
      } catch (err) {
        console.error(err instanceof Error ? err.message : err)
      }
    }
    console.log('Stopped.')
  })()
  await stopping
  process.exit(code)
}

/** SIGTERM, then SIGKILL if the process has not finished its graceful shutdown within 20 s. */
async function stopChild(name: string, child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => {
    console.warn(`${name} did not stop in 20 s; killing it`)
    child.kill('SIGKILL')
  }, 20_000)
  await exited
  clearTimeout(timer)
}

async function ready(url: string) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).ok
  } catch {
    return false
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (stopping) return
    if (Date.now() > deadline) throw new Error(`${what} did not become ready within ${ms / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The postmaster's pid: the first line of `postmaster.pid` in its data directory. */
function postmasterPid(dir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined
  } catch {
    return undefined // as root the directory belongs to `postgres`; still readable by root
  }
}

const redactUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')

// `on`, not `once`: a second Ctrl-C (or npm relaying the signal) must not cut the orderly shutdown short.
process.on('SIGINT', () => void shutdown(0))
process.on('SIGTERM', () => void shutdown(0))
main().catch(async (err) => {
  console.error(err instanceof Error ? err.message : err)
  await shutdown(1)
})
