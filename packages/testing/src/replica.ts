import { spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './environment'

/**
 * Where initdb, pg_ctl and pg_basebackup are: the newest /usr/lib/postgresql/<major>/bin (Debian's packages), or
 * on PATH. scripts/test.ts installs Debian's `postgresql` when none is there.
 */
export function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql'
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_basebackup')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (majors.length) return path.join(root, majors[0]!, 'bin')
  const onPath = spawnSync('sh', ['-c', 'command -v pg_basebackup'], { encoding: 'utf8' }).stdout.trim()
  return onPath ? path.dirname(onPath) : undefined
}

/**
 * A primary Postgres cluster and a streaming read replica of it (`pg_basebackup -R`), each on a free port in a temp
 * directory, for the read-replica tests (docs/operations.md, "Read replica"). The machine's own server is not set up
 * for replication, so both are new clusters, made with Debian's binaries (postgresBinaries) and run as `postgres` when the tests run as
 * root (Postgres refuses root). `stop()` stops both and removes the directory.
 */
export async function startReplicatedPostgres() {
  const bin = postgresBinaries()
  if (!bin) throw new Error('startReplicatedPostgres: no Postgres binaries (apt-get install postgresql)')
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roost-replica-'))
  const asUser: { uid?: number; gid?: number } = {}
  if (process.getuid?.() === 0) {
    const id = (flag: string) =>
      Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim())
    asUser.uid = id('-u')
    asUser.gid = id('-g')
    chownSync(dir, asUser.uid, asUser.gid)
  }
  const run = (command: string, args: string[]) => {
    const result = spawnSync(path.join(bin, command), args, { ...asUser, encoding: 'utf8', cwd: dir })
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}${result.stdout}`)
  }
  const primaryDir = path.join(dir, 'primary')
  const replicaDir = path.join(dir, 'replica')
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const options = (port: number) =>
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`
  const pgCtl = (data: string, action: 'start' | 'stop', port: number) =>
    action === 'start'
      ? run('pg_ctl', ['-D', data, '-w', '-l', `${data}.log`, '-o', options(port), 'start'])
      : run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop'])

  // initdb's pg_hba.conf trusts local and loopback connections, replication ones included.
  run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-N'])
  pgCtl(primaryDir, 'start', primaryPort)
  run('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
  ])
  pgCtl(replicaDir, 'start', replicaPort)

  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  let replicaRunning = true
  return {
    primaryUrl: (database = 'postgres') => url(primaryPort, database),
    replicaUrl: (database = 'postgres') => url(replicaPort, database),
    /** Stops the replica (fast shutdown: its connections are closed). */
    stopReplica() {
      pgCtl(replicaDir, 'stop', replicaPort)
      replicaRunning = false
    },
    startReplica() {
      pgCtl(replicaDir, 'start', replicaPort)
      replicaRunning = true
    },
    async stop() {
      try {
        if (replicaRunning) pgCtl(replicaDir, 'stop', replicaPort)
      } finally {
        try {
          pgCtl(primaryDir, 'stop', primaryPort)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    },
  }
}

export type ReplicatedPostgres = Awaited<ReturnType<typeof startReplicatedPostgres>>
