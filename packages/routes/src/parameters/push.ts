import { z } from 'zod'
import { NOTIFICATION_TYPES } from '@roost/events'
import { param } from '../params'

export const PUSH_POLICIES = ['all', 'followed', 'follower', 'none'] as const

const policy = () => param.oneOf(PUSH_POLICIES, 'Policy is not included in the list')

/** `data[alerts][TYPE]` for Mastodon's notification types, and `data[policy]`. */
const data = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z
    .object({
      alerts: z.object(Object.fromEntries(NOTIFICATION_TYPES.map((type) => [type, param.bool()]))).optional(),
      policy: policy(),
    })
    .optional(),
)

/** POST /api/v1/push/subscription */
export const createSubscriptionParams = z.object({
  subscription: z.object({
    endpoint: param.text(),
    keys: z.object({ p256dh: param.text(), auth: param.text() }).optional(),
    standard: param.bool(),
  }),
  data,
  /** masto.js sends the policy at the top level too. */
  policy: policy(),
})

/** PUT /api/v1/push/subscription */
export const updateSubscriptionParams = z.object({ data, policy: policy() })
