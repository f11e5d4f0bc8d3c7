import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { freePort } from '@roost/testing'
import { bundle } from '../bundle'
import type { Stack } from '../stack'

const ROOT = path.resolve(__dirname, '../..')

/** A worker running as its own process, with the port its /health and /metrics answer on. */
export type WorkerProcess = ChildProcess & { port: number; url: string }

const WORKERS = {
  accounts: { entry: 'apps/accounts/src/worker-main.ts', portVar: 'ACCOUNTS_WORKER_PORT' },
  push: { entry: 'apps/push/src/worker-main.ts', portVar: 'PUSH_WORKER_PORT' },
}

/**
 * A worker as its own process (worker-main.ts, bundled), as production runs it, on the stack's database (through
 * PgBouncer when the stack is) and Redis prefix, or what `env` says; resolves once it is ready. A dead worker's
 * claims lapse after 2 s instead of 30, so a restarted one takes its jobs over quickly.
 */
export async function startWorkerProcess(
  stack: Stack,
  which: keyof typeof WORKERS = 'accounts',
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const port = await freePort()
  const { entry, portVar } = WORKERS[which]
  const child = spawn(process.execPath, [await bundle(entry)], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...stack.serviceEnv[which],
      ACCOUNTS_URL: stack.accountsUrl,
      [portVar]: String(port),
      ACCOUNTS_WORKER_LOCK_MS: '2000',
      PUSH_WORKER_LOCK_MS: '2000',
      ...env,
    },
    stdio: 'ignore',
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${which} worker exited with ${child.exitCode}`)
    const ready = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) return Object.assign(child, { port, url })
    if (Date.now() > deadline) throw new Error(`the ${which} worker did not become ready`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * As many worker processes as the stack runs copies of each process (`stack.copies.count`: two with
 * ROOST_TEST_COPIES=2), each as `startWorkerProcess` starts one.
 */
export function startWorkerProcesses(
  stack: Stack,
  which: keyof typeof WORKERS,
  env: Record<string, string> = {},
): Promise<WorkerProcess[]> {
  return Promise.all(Array.from({ length: stack.copies.count }, () => startWorkerProcess(stack, which, env)))
}

/** Stops a worker process with `signal` and waits until it has exited. */
export async function stopWorkerProcess(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await exited
}
