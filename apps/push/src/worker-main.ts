import { runProcess } from '@roost/service'
import { loadPushConfig } from './config'
import { createPushWorker } from './worker'

runProcess('push-worker', loadPushConfig, createPushWorker, (config) => config.PUSH_WORKER_PORT)
