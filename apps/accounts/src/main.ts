import { runProcess } from '@roost/service'
import { loadAccountsConfig } from './config'
import { createAccountsService } from './service'

runProcess('accounts', loadAccountsConfig, createAccountsService, (config) => config.ACCOUNTS_PORT)
