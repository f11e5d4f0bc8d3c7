import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { installDebianPackage } from './apt'

/** Answers when a Postgres server takes connections at `url` (any database on it: ours may not exist yet). */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({
    connectionString: withDatabase(url, 'postgres'),
    connectionTimeoutMillis: 2000,
  })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Creates the database named in `url` when it is missing (a fresh server has only `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1) || 'postgres'
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') })
  await client.connect()
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name])
    if (!found.rowCount) await client.query(`create database "${name.replace(/"/g, '""')}"`)
  } finally {
    await client.end()
  }
}

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/**
 * initdb, pg_ctl: on PATH (Debian links them there in some images) or under /usr/lib/postgresql/<major>/bin;
 * Debian's package is installed when they are missing and we may (root with apt-get).
 */
export function findBinaries(): string | undefined {
  return installedBinaries() ?? (installDebianPackage('postgresql') ? installedBinaries() : undefined)
}

function installedBinaries(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim()
  if (onPath && existsSync(path.join(path.dirname(onPath), 'initdb'))) return path.dirname(onPath)
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const majors = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return majors.length ? path.join(root, majors[0]!, 'bin') : undefined
}

const isRoot = () => process.getuid?.() === 0

/**
 * A PostgreSQL server of the machine's own binaries, its data kept in `dir` across runs. Postgres refuses to
 * run as root, so as root it runs as the `postgres` user (the Debian package creates it) on a directory it owns.
 * `extraOptions`: more server options (`-c name=value …`), e.g. the bench's pg_stat_statements.
 */
export function startEmbeddedPostgres(dir: string, port: number, extraOptions = '') {
  const bin = findBinaries()
  if (!bin)
    throw new Error(
      'No PostgreSQL server here. Install one (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql) or set DATABASE_URL to a running server.',
    )
  const run = (command: string, args: string[]) => {
    const [file, argv] = isRoot()
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args]
    return execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  }
  const postgresIds = () => {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
    return { uid: id('-u'), gid: id('-g') }
  }

  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (isRoot()) {
    const { uid, gid } = postgresIds()
    chownSync(dir, uid, gid)
  }
  if (!existsSync(path.join(dir, 'PG_VERSION')))
    run('initdb', ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions'])
  // A previous run that was killed hard may have left the server up: stop it so ours gets this port.
  if (existsSync(path.join(dir, 'postmaster.pid'))) {
    try {
      run('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop'])
    } catch {
      // not running: a stale pid file, which postgres itself clears
    }
  }
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} ${extraOptions}`.trim()
  run('pg_ctl', ['-D', dir, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start'])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/roost`,
    stop() {
      run('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop'])
    },
  }
}
