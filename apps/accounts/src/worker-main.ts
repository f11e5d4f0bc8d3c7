import { runProcess } from '@roost/service'
import { loadAccountsWorkerConfig } from './config'
import { createAccountsWorker } from './worker'

runProcess(
  'accounts-worker',
  loadAccountsWorkerConfig,
  createAccountsWorker,
  (config) => config.ACCOUNTS_WORKER_PORT,
)
