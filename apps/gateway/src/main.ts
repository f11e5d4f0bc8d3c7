import { createLogger, stopOnSignals } from '@roost/service'
import { loadGatewayConfig } from './config'
import { createGateway } from './service'

async function main() {
  const config = loadGatewayConfig(process.env)
  const gateway = await createGateway(config)
  await gateway.start(config.GATEWAY_PORT)
  stopOnSignals(gateway.stop, createLogger('gateway', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
