import type { Request } from 'express'
import type { ServiceRoutes } from '@roost/routes'
import type { Knex } from '@roost/db'
import type { z } from 'zod'
import type { NotificationType } from '@roost/events'
import { createSubscriptionParams, readParams, updateSubscriptionParams } from '@roost/routes'
import type { LoginRefusals } from '@roost/auth'
import { forbidden, notFound, unprocessable, userRequired } from '@roost/service'
import type { PushConfig } from '../../../config'
import { decodeBase64, isAuthSecret, isP256PublicKey } from '../../../subscriptions/keys'
import type { Alerts, Policy, SubscriptionRow } from '../../../subscriptions/store'
import { deleteByToken, findByToken, replaceSubscription, updateData } from '../../../subscriptions/store'

const PATH = '/api/v1/push/subscription'

/**
 * The signed-in user's token: push subscriptions belong to a user, so app tokens are refused as in Mastodon, and
 * so are users whose login cannot be used (unconfirmed, pending, disabled, suspended: Mastodon's
 * `require_functional!`), from the refusals the accounts service publishes.
 */
async function userTokenOf(req: Request, logins: LoginRefusals) {
  const token = req.token
  if (!token?.userId) throw userRequired()
  const refusal = await logins.refusalOf(token.userId)
  if (refusal) throw forbidden(refusal)
  return { ...token, userId: token.userId }
}

type DataParams = Pick<z.output<typeof updateSubscriptionParams>, 'data' | 'policy'>

/**
 * `data[alerts]` and `data[policy]` (masto.js also sends `policy` at the top level). Only Mastodon's notification
 * types are kept; a blank alert is "not given". An unknown policy is refused, unlike Mastodon, where it silently
 * disables every push.
 */
function readData(p: DataParams): { alerts: Alerts; policy: Policy } {
  const alerts: Alerts = {}
  for (const [type, on] of Object.entries(p.data?.alerts ?? {}))
    if (on !== undefined) alerts[type as NotificationType] = on
  return { alerts, policy: p.data?.policy ?? p.policy ?? 'all' }
}

function isPushUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== ''
  } catch {
    return false
  }
}

function readSubscription({ subscription }: z.output<typeof createSubscriptionParams>) {
  const endpoint = subscription.endpoint?.trim() ?? ''
  const p256dh = subscription.keys?.p256dh?.trim() ?? ''
  const auth = subscription.keys?.auth?.trim() ?? ''
  const problems: string[] = []
  if (!endpoint) problems.push("Endpoint can't be blank")
  else if (!isPushUrl(endpoint)) problems.push('Endpoint is invalid')
  if (!p256dh) problems.push("Keys p256dh can't be blank")
  else if (!isP256PublicKey(p256dh)) problems.push('Keys p256dh is not a valid P-256 public key')
  if (!auth) problems.push("Keys auth can't be blank")
  else if (!isAuthSecret(auth)) problems.push('Keys auth is not a valid 16-byte secret')
  if (problems.length) throw unprocessable(`Validation failed: ${problems.join(', ')}`)
  // Mastodon's default is the legacy Web Push draft (aesgcm), which clients that never send `standard` (Mastodon.py,
  // apps built for Mastodon 4.3 and older) can only decrypt; `standard=true` asks for RFC 8291 aes128gcm.
  const standard = subscription.standard ?? false
  // Stored as base64url, the form web-push and the payload encryption expect.
  const normal = (key: string) => decodeBase64(key)!.toString('base64url')
  return { endpoint, p256dh: normal(p256dh), auth: normal(auth), standard }
}

/** The WebPushSubscription entity; `id` is a JSON number, as Mastodon's serializer sends it. */
export const webPushSubscription = (row: SubscriptionRow, serverKey: string) => ({
  id: Number(row.id),
  endpoint: row.endpoint,
  standard: row.standard,
  alerts: row.alerts,
  server_key: serverKey,
  policy: row.policy,
})

/**
 * `/api/v1/push/subscription`: the calling token's one subscription. A POST takes its endpoint from whoever held
 * it (`replaceSubscription`); the token that held it has none from then on: GET and PUT answer 404, and DELETE `{}`
 * without touching the endpoint's new owner.
 */
export function subscriptionRoutes(api: ServiceRoutes, db: Knex, config: PushConfig, logins: LoginRefusals) {
  const entity = (row: SubscriptionRow) => webPushSubscription(row, config.VAPID_PUBLIC_KEY)

  api.post(PATH, async (req, res) => {
    const token = await userTokenOf(req, logins)
    const p = readParams(req, createSubscriptionParams)
    const subscription = readSubscription(p)
    const data = readData(p)
    const row = await replaceSubscription(db, {
      endpoint: subscription.endpoint,
      keyP256dh: subscription.p256dh,
      keyAuth: subscription.auth,
      standard: subscription.standard,
      ...data,
      userId: token.userId,
      tokenId: token.tokenId,
      token: token.raw,
    })
    res.json(entity(row))
  })

  api.get(PATH, async (req, res) => {
    const row = await findByToken(db, (await userTokenOf(req, logins)).tokenId)
    if (!row) throw notFound()
    res.json(entity(row))
  })

  // Only `data` changes, and it is replaced wholesale: alerts not sent become absent (off), as in Mastodon.
  api.put(PATH, async (req, res) => {
    const token = await userTokenOf(req, logins)
    if (!(await findByToken(db, token.tokenId))) throw notFound()
    const row = await updateData(db, token.tokenId, readData(readParams(req, updateSubscriptionParams)))
    if (!row) throw notFound()
    res.json(entity(row))
  })

  api.delete(PATH, async (req, res) => {
    await deleteByToken(db, (await userTokenOf(req, logins)).tokenId)
    res.json({})
  })
}
