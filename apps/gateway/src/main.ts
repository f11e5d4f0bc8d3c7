import { runProcess } from '@roost/service'
import { loadGatewayConfig } from './config'
import { createGateway } from './service'

runProcess('gateway', loadGatewayConfig, createGateway, (config) => config.GATEWAY_PORT)
