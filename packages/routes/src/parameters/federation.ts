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

/** A post's replies: its author's own first, then (`only_other_accounts`) everyone else's, each by `min_id`. */
export const repliesParams = z.object({
  page: param.checkedByHandler({ type: 'string', description: 'true: a page, not the summary' }),
  min_id: param.checkedByHandler({ type: 'string', description: 'Replies after this id' }),
  only_other_accounts: param.checkedByHandler({
    type: 'string',
    description: "true: replies by others than the post's author",
  }),
})
