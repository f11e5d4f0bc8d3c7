import type { Federation } from '../federation/transport/client'
import type { Deliver } from '../federation/transport/delivery-queue'
import { followRelay, unfollowRelay } from '../federation/relays'
import type { Consumer } from './consumer'

/** Relays (docs/federation.md, "Relays"): the instance actor's Follow of an enabled relay, its Undo on disabling. */
export function relaysConsumer(fed: Federation, deliver: Deliver): Consumer {
  return {
    'relay.enabled': async ({ relayId }) => {
      if (fed.enabled) await followRelay(fed, deliver, relayId)
    },
    'relay.disabled': async (a) => {
      if (fed.enabled) await unfollowRelay(fed, deliver, a)
    },
  }
}
