import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { postgresAnswers, startEmbeddedPostgres } from '../scripts/dev/postgres'
import { redisAnswers, startEmbeddedRedis } from '../scripts/dev/redis'
import type { Watched } from './procstat'

const ROOT = path.resolve(__dirname, '..')

/**
 * The bench's ports (48xx, or from BENCH_PORT_BASE so that two benches can run at once): the stack's six
 * processes and the gateway's metrics port, its own Postgres and Redis, and the streaming scenario's baseline server.
 */
const base = Number(process.env.BENCH_PORT_BASE ?? 4800)
export const PORTS = {
  gateway: base,
  accounts: base + 1,
  push: base + 2,
  pushWorker: base + 3,
  accountsWorker: base + 4,
  streaming: base + 5,
  gatewayMetrics: base + 6,
  postgres: base + 10,
  redis: base + 11,
  streamingBaseline: base + 15,
  proxyBaseline: base + 16,
}

export interface BenchStackOptions {
  /** Extra environment for the Roost processes (e.g. ROOST_NODE_ARGS=--cpu-prof). */
  env?: Record<string, string>
  /** Where the processes' logs go (LOG_DESTINATION); by default a file in the data directory. */
  log?: string
  /** Extra Postgres server options (e.g. `-c shared_preload_libraries=pg_stat_statements`). */
  postgresOptions?: string
}

/**
 * The stack as `npm start` runs it (scripts/start.ts: the bundles of `npm run build`, five processes), on a
 * Postgres and a Redis of its own in a temporary directory, so that every server process the bench measures is
 * ours: the five Roost processes, the postmaster with its backends, and redis-server.
 */
export async function startBenchStack(options: BenchStackOptions = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roost-bench-'))
  // As root, Postgres runs as `postgres`, which must be able to reach its directory inside (as npm start does).
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o711)
  const pgDir = path.join(dataDir, 'postgres')
  const databaseUrl = `postgres://postgres@127.0.0.1:${PORTS.postgres}/roost`
  const redisUrl = `redis://127.0.0.1:${PORTS.redis}`
  if (await postgresAnswers(databaseUrl)) throw new Error(`something already answers at ${databaseUrl}`)
  if (await redisAnswers(redisUrl)) throw new Error(`something already answers at ${redisUrl}`)
  const postgres = startEmbeddedPostgres(pgDir, PORTS.postgres, options.postgresOptions)
  const redis = startEmbeddedRedis(path.join(dataDir, 'redis'), PORTS.redis)
  for (let i = 0; !(await redisAnswers(redisUrl)); i++) {
    if (i > 100) throw new Error('the bench Redis did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }

  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    ROOST_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    GATEWAY_PORT: String(PORTS.gateway),
    ACCOUNTS_PORT: String(PORTS.accounts),
    PUSH_PORT: String(PORTS.push),
    PUSH_WORKER_PORT: String(PORTS.pushWorker),
    ACCOUNTS_WORKER_PORT: String(PORTS.accountsWorker),
    STREAMING_PORT: String(PORTS.streaming),
    GATEWAY_METRICS_PORT: String(PORTS.gatewayMetrics),
    PUBLIC_URL: `http://127.0.0.1:${PORTS.gateway}`,
    NODE_ENV: 'production',
    // The bench makes its users in the database; with no SMTP server, production would refuse to start otherwise.
    REQUIRE_EMAIL_CONFIRMATION: 'false',
    LOG_LEVEL: 'warn',
    LOG_DESTINATION: options.log ?? path.join(dataDir, 'services.log'),
    ROOST_ADMIN_PASSWORD: 'bench-admin-password',
    ...options.env,
  }
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env, // start.ts passes it on to every process
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const deadline = Date.now() + 300_000
  const fail = (message: string) => {
    child.kill('SIGINT')
    redis.child.kill('SIGTERM')
    postgres.stop()
    return new Error(message)
  }
  while (!output.includes('Roost is running.')) {
    if (child.exitCode !== null) throw fail(`npm start exited:\n${output}`)
    if (Date.now() > deadline) throw fail(`npm start did not come up:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const pids = JSON.parse(readFileSync(path.join(dataDir, 'processes.json'), 'utf8')) as Record<
    string,
    number
  >
  const postmaster = Number(readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0])
  const watched: Watched[] = [
    ...Object.entries(pids).map(([name, pid]) => ({ name, pid })),
    { name: 'postgres', pid: postmaster, tree: true },
    { name: 'redis', pid: redis.child.pid! },
  ]
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<
    string,
    string
  >

  return {
    dataDir,
    databaseUrl,
    redisUrl,
    env,
    secrets,
    watched,
    gatewayUrl: `http://127.0.0.1:${PORTS.gateway}`,
    accountsUrl: `http://127.0.0.1:${PORTS.accounts}`,
    streamingUrl: `http://127.0.0.1:${PORTS.streaming}`,
    output: () => output,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGINT')
      await exited
      redis.child.kill('SIGTERM')
      postgres.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
export type BenchStack = Awaited<ReturnType<typeof startBenchStack>>
