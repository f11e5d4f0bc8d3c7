import type { Migration } from '@roost/db'
import * as pushSubscriptions from './20261121000000_push_subscriptions'

/** Every migration of the `push` schema, in order. Add new files here. */
export const migrations: Migration[] = [{ name: '20261121000000_push_subscriptions', ...pushSubscriptions }]
