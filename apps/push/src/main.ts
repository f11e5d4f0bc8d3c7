import { runProcess } from '@roost/service'
import { loadPushConfig } from './config'
import { createPushService } from './service'

runProcess('push', loadPushConfig, createPushService, (config) => config.PUSH_PORT)
