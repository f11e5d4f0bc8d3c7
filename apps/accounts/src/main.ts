import { createLogger, stopOnSignals } from '@roost/service'
import { loadAccountsConfig } from './config'
import { createAccountsService } from './service'

async function main() {
  const config = loadAccountsConfig(process.env)
  const service = await createAccountsService(config)
  await service.start(config.ACCOUNTS_PORT)
  stopOnSignals(service.stop, createLogger('accounts', config.LOG_LEVEL))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
