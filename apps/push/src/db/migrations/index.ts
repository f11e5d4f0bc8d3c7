import type { Migration } from '@roost/db'
import * as pushSubscriptions from './20261121000000_push_subscriptions'
import * as endpointPerToken from './20261123400000_endpoint_per_token'
import * as acknowledgedPushes from './20261127000000_acknowledged_pushes'
import * as endpointUnique from './20261128100000_endpoint_unique'

/** Every migration of the `push` schema, in order. Add new files here. */
export const migrations: Migration[] = [
  { name: '20261121000000_push_subscriptions', ...pushSubscriptions },
  { name: '20261123400000_endpoint_per_token', ...endpointPerToken },
  { name: '20261127000000_acknowledged_pushes', ...acknowledgedPushes },
  { name: '20261128100000_endpoint_unique', ...endpointUnique },
]
