import { execFile, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '@roost/testing'
import { migrateAccounts } from '../../apps/accounts/src/service'
import { migratePush } from '../../apps/push/src/service'
import { ensureDatabase, findBinaries, startEmbeddedPostgres } from '../../scripts/dev/postgres'
import { findRedisServer, redisAnswers } from '../../scripts/dev/redis'

/** A temporary directory the `postgres` user can reach inside when we are root (as npm start makes its own). */
function temporaryDirectory(name: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `roost-faults-${name}-`))
  if (process.getuid?.() === 0) chmodSync(dir, 0o711)
  return dir
}

/**
 * A PostgreSQL server of the test's own (the machine's binaries, initdb into a temporary directory, a free port;
 * as root it runs as `postgres`, scripts/dev/postgres.ts), with Roost's schemas migrated: a test may stop it and
 * start it again without touching the machine's server.
 */
export async function startOwnPostgres() {
  const dir = temporaryDirectory('postgres')
  const data = path.join(dir, 'data')
  const port = await freePort()
  const server = startEmbeddedPostgres(data, port)
  let running = true
  await ensureDatabase(server.url)
  await migrateAccounts(server.url)
  await migratePush(server.url)
  // pg_ctl without blocking this process: the stack's services run in it and must go on answering meanwhile.
  const pgCtl = (...args: string[]) => {
    const command = path.join(findBinaries()!, 'pg_ctl')
    const [file, argv] =
      process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
    return new Promise<void>((resolve, reject) =>
      execFile(file, argv, (err, _stdout, stderr) =>
        err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(),
      ),
    )
  }
  return {
    url: server.url,
    /** pg_ctl stop -m fast: every connection is cut and none is taken, as when the server goes away. */
    async stop() {
      await pgCtl('-D', data, '-m', 'fast', '-w', 'stop')
      running = false
    },
    /** Starts it again on its data and port; resolves once it takes connections. */
    async start() {
      const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${data}`
      await pgCtl('-D', data, '-o', options, '-l', path.join(data, 'server.log'), '-w', '-t', '60', 'start')
      running = true
    },
    async remove() {
      if (running) await pgCtl('-D', data, '-m', 'immediate', '-w', 'stop').catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A Redis server of the test's own on a free port (redis-server as npm start runs it: noeviction), with an
 * append-only file fsynced at every write in a temporary directory. `kill()` is SIGKILL; `start({ keep })` brings
 * it back on the same port with its data, or empty (the directory wiped: a replacement that lost everything).
 */
export async function startOwnRedis() {
  const dir = temporaryDirectory('redis')
  const port = await freePort()
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  const start = async ({ keep = true } = {}) => {
    const data = path.join(dir, 'data')
    if (!keep) rmSync(data, { recursive: true, force: true })
    mkdirSync(data, { recursive: true })
    child = spawn(
      findRedisServer(),
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        data,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    )
    const deadline = Date.now() + 15_000
    while (!(await redisAnswers(url))) {
      if (Date.now() > deadline) throw new Error('the test Redis did not start')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  await start()
  return {
    url,
    start,
    async kill() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child!.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
    async remove() {
      await this.kill()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
