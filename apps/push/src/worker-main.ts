import { createLogger, stopOnSignals } from '@roost/service'
import { loadPushConfig } from './config'
import { createPushWorker } from './worker'

async function main() {
  const config = loadPushConfig(process.env)
  const worker = await createPushWorker(config)
  await worker.start(config.PUSH_WORKER_PORT)
  stopOnSignals(worker.stop, createLogger('push-worker', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
