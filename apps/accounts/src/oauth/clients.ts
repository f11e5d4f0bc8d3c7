import { timingSafeEqual } from 'node:crypto'
import type { Request } from 'express'
import type { Params } from '@roost/service'
import type { AccountsContext } from '../context'
import type { ApplicationRow } from '../db/rows'

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Basic credentials are percent-encoded (RFC 6749 §2.3.1); a malformed escape authenticates nobody. */
function percentDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

/**
 * RFC 6749 §2.3 client authentication: HTTP Basic (`client_secret_basic`) or `client_id` + `client_secret`
 * params (`client_secret_post`). Resolves with the application, or undefined when authentication fails.
 */
export async function authenticateClient(ctx: AccountsContext, req: Request, p: Params) {
  const { clientId, clientSecret } = clientCredentials(req, p)
  if (!clientId || !clientSecret) return undefined
  const app = await ctx.db<ApplicationRow>('oauth_applications').where({ client_id: clientId }).first()
  return app && sameSecret(app.client_secret, clientSecret) ? app : undefined
}

/** The client id and secret a request presents, from HTTP Basic or the parameters. */
export function clientCredentials(req: Request, p: Params) {
  let clientId = typeof p.client_id === 'string' ? p.client_id : undefined
  let clientSecret = typeof p.client_secret === 'string' ? p.client_secret : undefined
  const basic = req.headers.authorization?.match(/^Basic\s+(\S+)$/i)
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString()
    const colon = decoded.indexOf(':')
    if (colon > 0) {
      clientId = percentDecode(decoded.slice(0, colon))
      clientSecret = percentDecode(decoded.slice(colon + 1))
    }
  }
  return { clientId, clientSecret }
}
