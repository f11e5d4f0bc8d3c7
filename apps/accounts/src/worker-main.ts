import { createLogger, stopOnSignals } from '@roost/service'
import { loadAccountsWorkerConfig } from './config'
import { createAccountsWorker } from './worker'

async function main() {
  const config = loadAccountsWorkerConfig(process.env)
  const worker = await createAccountsWorker(config)
  await worker.start(config.ACCOUNTS_WORKER_PORT)
  stopOnSignals(worker.stop, createLogger('accounts-worker', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
