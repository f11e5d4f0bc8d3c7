import { z } from 'zod'
import { param } from '../params'

/** GET /.well-known/webfinger — missing or malformed is a 400 with no body, as Mastodon (checked by the handler). */
export const webfingerParams = z.object({
  resource: param.checkedByHandler({ type: 'string', description: 'acct:user@domain or an actor URL' }),
})

/** The collections of an actor (outbox, followers, following): `page` asks for a page, the ids page on. */
export const collectionParams = z.object({
  page: param.checkedByHandler({
    type: 'string',
    description: 'true or a page number: a page, not the summary',
  }),
  max_id: param.checkedByHandler({ type: 'string', description: 'Items older than this id' }),
  min_id: param.checkedByHandler({ type: 'string', description: 'Items newer than this id' }),
})
