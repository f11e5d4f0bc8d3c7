import { createLogger, stopOnSignals } from '@roost/service'
import { loadPushConfig } from './config'
import { createPushService } from './service'

async function main() {
  const config = loadPushConfig(process.env)
  const service = await createPushService(config)
  await service.start(config.PUSH_PORT)
  stopOnSignals(service.stop, createLogger('push', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
