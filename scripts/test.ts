// `npm test`: runs every jest suite once and ends with the totals on a line of their own, `N passed, N failed`,
// the line CI reads. Extra arguments go to jest (`npm test -- test/oauth`).
//
// Beside that main run, and at the same time, a second jest run (jest.modes.config.mjs) runs the fault suites
// (test/faults), the activities pipeline and the streaming events suite again, once with two copies of every process
// and once with every process through PgBouncer in transaction mode (jest projects named `copies=2` and `pgbouncer`;
// docs/operations.md, "What the tests run in each mode"). Those suites wait on timers and restarts much more than
// they compute, so on two cores they fit beside the main run. Its output follows the main run's; the totals line
// counts both.
//
// Like `npm start`, it brings what it needs: Postgres and Redis at TEST_DATABASE_URL / TEST_REDIS_URL, or at the
// default addresses when they answer there, or else servers of its own (the machine's binaries, installed from
// Debian when missing and we may) under a directory of this run, on free ports, stopped and removed at the end.
// An address given explicitly that does not answer stops the run with the tests' own message (packages/testing).
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort, postgresBinaries } from '@roost/testing'
import { postgresAnswers, startEmbeddedPostgres } from './dev/postgres'
import { redisAnswers, startEmbeddedRedis } from './dev/redis'

const ROOT = path.resolve(__dirname, '..')
const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres'
const DEFAULT_REDIS = 'redis://127.0.0.1:6379'

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0

/**
 * What the suite drives besides Node, Postgres and Redis, each a Debian package: Chromium for the page tests
 * (playwright-core never downloads a browser), docker-compose, which checks docker-compose.yml offline, and two
 * clients nobody here wrote, toot and Mastodon.py (test/clients). Missing ones are installed with apt-get when we
 * may (root), once; otherwise the run stops here, naming them and the command, instead of failing or skipping tests
 * later.
 */
function ensureTools() {
  const tools = [
    { name: 'chromium', present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') },
    { name: 'docker-compose', present: () => onPath('docker-compose') },
    { name: 'toot', present: () => onPath('toot') },
    // Video, audio and GIF uploads are transcoded, and their tests made, with it (docs/media.md).
    { name: 'ffmpeg', present: () => onPath('ffmpeg') && onPath('ffprobe') },
    // initdb and pg_basebackup: test/scale/replica.test.ts makes a primary and a streaming replica with them.
    { name: 'postgresql', present: () => postgresBinaries() !== undefined },
    // PgBouncer in transaction mode, which test/scale and ROOST_TEST_PGBOUNCER=1 run the stack through.
    { name: 'pgbouncer', present: () => existsSync('/usr/sbin/pgbouncer') || onPath('pgbouncer') },
    {
      name: 'python3-mastodon',
      present: () => spawnSync('/usr/bin/python3', ['-c', 'import mastodon']).status === 0,
    },
  ]
  const missing = tools.filter((tool) => !tool.present()).map((tool) => tool.name)
  if (!missing.length) return
  const install = `apt-get install -y ${missing.join(' ')}`
  const what = `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing (the tests drive ${missing.length > 1 ? 'them' : 'it'})`
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    console.error(`npm test: ${what}. Install: sudo ${install}`)
    process.exit(1)
  }
  console.log(`npm test: ${what}: installing Debian's packages, once: ${install}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
  spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env })
  const still = tools.filter((tool) => !tool.present()).map((tool) => tool.name)
  if (still.length) {
    console.error(`npm test: installing ${still.join(' and ')} failed (see above). Install: ${install}`)
    process.exit(1)
  }
}

/** What `servers()` started, to stop at the end. */
const cleanups: (() => void)[] = []
let scratch: string | undefined
const scratchDir = () => {
  scratch ??= mkdtempSync(path.join(tmpdir(), 'roost-test-servers-'))
  // As root, the embedded Postgres runs as `postgres`, which must be able to reach its directory inside.
  if (process.getuid?.() === 0) chmodSync(scratch, 0o711)
  return scratch
}

/** The Postgres and Redis the tests use, started here when none is given and none answers at the defaults. */
async function servers(): Promise<Record<string, string>> {
  const env: Record<string, string> = {}
  if (!process.env.TEST_DATABASE_URL && !(await postgresAnswers(DEFAULT_POSTGRES))) {
    const port = await freePort()
    // A scratch server: durability would only cost time.
    const postgres = startEmbeddedPostgres(
      path.join(scratchDir(), 'postgres'),
      port,
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    )
    cleanups.push(() => postgres.stop())
    env.TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`
    console.log(
      `npm test: no PostgreSQL answers at 127.0.0.1:5432: started one of this run at 127.0.0.1:${port} (stopped at the end)`,
    )
  }
  if (!process.env.TEST_REDIS_URL && !(await redisAnswers(DEFAULT_REDIS))) {
    const port = await freePort()
    const redis = startEmbeddedRedis(path.join(scratchDir(), 'redis'), port)
    cleanups.push(() => stopChild(redis.child))
    env.TEST_REDIS_URL = redis.url
    await waitFor('Redis', () => redisAnswers(redis.url), 15_000)
    console.log(
      `npm test: no Redis answers at 127.0.0.1:6379: started one of this run at 127.0.0.1:${port} (stopped at the end)`,
    )
  }
  return env
}

function stopAll() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup()
    } catch (err) {
      console.error(`npm test: stopping a server of this run failed: ${(err as Error).message}`)
    }
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true })
}

const stopChild = (child: ChildProcess) => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
}

async function waitFor(what: string, check: () => Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not answer within ${ms / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** What one jest run counted: its tests passed and failed, and whether it ended well. */
interface JestTotals {
  passed: number
  failed: number
  ok: boolean
}

/** The jest runs under way, stopped with us. */
const jestRuns = new Set<ChildProcess>()

/**
 * One jest run with `args`, its output to our own (`inherit`) or into a file; resolves with its totals, read from the
 * JSON report it writes.
 */
function runJest(args: string[], env: NodeJS.ProcessEnv, output: 'inherit' | string): Promise<JestTotals> {
  const report = path.join(mkdtempSync(path.join(tmpdir(), 'roost-jest-')), 'report.json')
  const fd = output === 'inherit' ? undefined : openSync(output, 'w')
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--json', `--outputFile=${report}`, ...args],
    { stdio: fd === undefined ? 'inherit' : ['ignore', fd, fd], env, cwd: ROOT },
  )
  jestRuns.add(child)
  return new Promise((resolve) =>
    child.on('close', (status) => {
      jestRuns.delete(child)
      if (fd !== undefined) closeSync(fd)
      try {
        const result = JSON.parse(readFileSync(report, 'utf8'))
        // A suite that fails to load counts as a failure too, even though it ran no test.
        const failed = result.numFailedTests + result.numRuntimeErrorTestSuites
        resolve({ passed: result.numPassedTests, failed, ok: status === 0 && failed === 0 })
      } catch {
        console.error('jest wrote no report: it failed before running the tests (see its output).')
        resolve({ passed: 0, failed: 1, ok: false })
      }
    }),
  )
}

async function main(): Promise<number> {
  ensureTools()
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const child of jestRuns) stopChild(child)
      stopAll()
      process.exit(1)
    })
  try {
    const env = {
      ...process.env,
      ...(await servers()),
      LOG_DESTINATION: process.env.LOG_DESTINATION ?? path.join(tmpdir(), 'roost-test.log'),
    }
    const args = process.argv.slice(2)
    const modesOutput = path.join(mkdtempSync(path.join(tmpdir(), 'roost-jest-modes-')), 'output.txt')
    const [main, modes] = await Promise.all([
      runJest(args, env, 'inherit'),
      // One test file at a time: with the main run's two, three on two cores. --passWithNoTests: arguments that
      // name none of its suites (`npm test -- test/oauth`) leave it nothing to do.
      runJest(
        ['-c', 'jest.modes.config.mjs', '--maxWorkers=1', '--passWithNoTests', ...args],
        env,
        modesOutput,
      ),
    ])
    console.log(
      '\n── The fault, pipeline and streaming suites with copies=2 and through pgbouncer (jest.modes.config.mjs) ──\n',
    )
    console.log(readFileSync(modesOutput, 'utf8'))
    const passed = main.passed + modes.passed
    const failed = main.failed + modes.failed
    console.log(
      `main run: ${main.passed} passed, ${main.failed} failed; copies=2 and pgbouncer: ${modes.passed} passed, ${modes.failed} failed`,
    )
    console.log(`\n${passed} passed, ${failed} failed`)
    return main.ok && modes.ok && passed > 0 ? 0 : 1
  } finally {
    stopAll()
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`npm test: ${err instanceof Error ? err.message : err}`)
    stopAll()
    console.log('\n0 passed, 1 failed')
    process.exit(1)
  },
)
