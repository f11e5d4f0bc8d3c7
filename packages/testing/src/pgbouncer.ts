import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { freePort } from './environment'

/** Debian's path (`apt-get install pgbouncer`); scripts/test.ts installs it on a fresh machine. */
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p)) ?? 'pgbouncer'

export interface PgBouncer {
  /** A URL through PgBouncer per schema: the database entry whose `connect_query` sets that schema's search_path. */
  urlFor(schema: string): string
  port: number
  stop(): Promise<void>
}

/**
 * PgBouncer in transaction mode in front of one test database, on a port of its own, as a child process (as the
 * `postgres` user when the tests run as root: PgBouncer refuses to run as root). `auth_type = any`: the test
 * Postgres trusts loopback. One database entry per service schema, as operators set it up (docs/operations.md,
 * "PgBouncer"): a pooled server connection must have its service's search_path whichever client it serves.
 */
export async function startPgBouncer(
  databaseUrl: string,
  schemas: string[],
  options: { poolSize?: number } = {},
): Promise<PgBouncer> {
  const direct = new URL(databaseUrl)
  const port = await freePort()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roost-pgbouncer-'))
  const user = decodeURIComponent(direct.username || 'postgres')
  const database = direct.pathname.slice(1)
  const alias = (schema: string) => `${database}_${schema}`
  const entries = schemas.map(
    (schema) =>
      `${alias(schema)} = host=${direct.hostname} port=${direct.port || 5432} dbname=${database} user=${user} ` +
      `connect_query='SET search_path TO ${schema}, public'`,
  )
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      ...entries,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits,options',
      'server_reset_query =',
      // A client waiting for a server connection (Postgres down) is refused after 5 s, not PgBouncer's 120: the
      // processes answer 503 as they do without a pooler (docs/operations.md, "PgBouncer").
      'query_wait_timeout = 5',
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
  )
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`)
  const asUser: { uid?: number; gid?: number } = {}
  if (process.getuid?.() === 0) {
    const id = (flag: string) =>
      Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim())
    asUser.uid = id('-u')
    asUser.gid = id('-g')
    for (const file of ['', 'pgbouncer.ini', 'userlist.txt'])
      chownSync(path.join(dir, file), asUser.uid, asUser.gid)
  }
  let output = ''
  const child: ChildProcess = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], {
    ...asUser,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (d) => (output = (output + d).slice(-4000)))
  child.stderr?.on('data', (d) => (output = (output + d).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const urlFor = (schema: string) => {
    const url = new URL(databaseUrl)
    url.port = String(port)
    url.hostname = '127.0.0.1'
    url.pathname = `/${alias(schema)}`
    return url.toString()
  }
  // Ready when a query goes through.
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${output}`)
    const client = new pg.Client({ connectionString: urlFor(schemas[0]!) })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('select 1')
      await client.end()
      break
    } catch (err) {
      await client.end().catch(() => {})
      if (Date.now() > deadline)
        throw new Error(`pgbouncer did not answer: ${(err as Error).message}\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    port,
    urlFor,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
