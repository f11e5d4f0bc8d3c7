import { z } from 'zod'
import { param } from '../params'

/** GET /.well-known/webfinger — missing or malformed is a 400 with no body, as Mastodon (checked by the handler). */
export const webfingerParams = z.object({
  resource: param.checkedByHandler({ type: 'string', description: 'acct:user@domain or an actor URL' }),
})
