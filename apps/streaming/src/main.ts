import { runProcess } from '@roost/service'
import { loadStreamingConfig } from './config'
import { createStreamingService } from './service'

runProcess('streaming', loadStreamingConfig, createStreamingService, (config) => config.STREAMING_PORT)
