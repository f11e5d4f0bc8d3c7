import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import path from 'node:path'
import { freePort } from '@roost/testing'
import type { Stack } from '../stack'

const ROOT = path.resolve(__dirname, '../..')

/**
 * The accounts worker as its own process (worker-main.ts), as production runs it, on the stack's database and
 * Redis prefix; resolves once it is ready. A dead worker's claims lapse after 2 s instead of 30, so a restarted one
 * takes its jobs over quickly.
 */
export async function startWorkerProcess(stack: Stack): Promise<ChildProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/accounts/src/worker-main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...stack.env,
      ACCOUNTS_WORKER_PORT: String(port),
      ACCOUNTS_WORKER_LOCK_MS: '2000',
    },
    stdio: 'ignore',
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the accounts worker exited with ${child.exitCode}`)
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) return child
    if (Date.now() > deadline) throw new Error('the accounts worker did not become ready')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Stops a worker process with `signal` and waits until it has exited. */
export async function stopWorkerProcess(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await exited
}
