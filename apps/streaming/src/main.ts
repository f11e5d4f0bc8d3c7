import { createLogger, stopOnSignals } from '@roost/service'
import { loadStreamingConfig } from './config'
import { createStreamingService } from './service'

async function main() {
  const config = loadStreamingConfig(process.env)
  const service = await createStreamingService(config)
  await service.start(config.STREAMING_PORT)
  stopOnSignals(service.stop, createLogger('streaming', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
