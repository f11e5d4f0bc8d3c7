import { z } from 'zod'
import { param } from '../params'

/** POST /api/v1/accounts — sign-up; validated by the handler, which answers 422 with `details` as Mastodon. */
export const createAccountParams = z.object({
  username: param.checkedByHandler({ type: 'string' }),
  email: param.checkedByHandler({ type: 'string' }),
  password: param.checkedByHandler({ type: 'string' }),
  agreement: param.checkedByHandler({ type: 'boolean' }),
  locale: param.checkedByHandler({ type: 'string' }),
  reason: param.checkedByHandler({ type: 'string' }),
  date_of_birth: param.checkedByHandler({ type: 'string', format: 'date' }),
  invite_code: param.checkedByHandler({
    type: 'string',
    description: 'An invite’s code: signs up while registrations are closed, skips approval',
  }),
})

/** GET /api/v1/accounts?id[]= */
export const listAccountsParams = z.object({ id: param.list() })

/** GET /api/v1/accounts/lookup — any acct that does not name an account (a list included) is a 404, as Mastodon. */
export const lookupAccountParams = z.object({ acct: param.checkedByHandler({ type: 'string' }) })

/** GET /api/v1/accounts/search */
export const searchAccountsParams = z.object({
  q: param.requiredText(),
  limit: param.page.limit,
  offset: param.checkedByHandler({ type: 'integer' }),
  following: param.bool(),
  resolve: param.bool(),
})

/** GET /api/v1/accounts/relationships */
export const relationshipsParams = z.object({ id: param.list(), with_suspended: param.bool() })

/** GET /api/v1/accounts/:id/statuses and …/statuses/media */
export const accountStatusesParams = z.object({
  ...param.page,
  pinned: param.bool(),
  only_media: param.bool(),
  exclude_replies: param.bool(),
  exclude_reblogs: param.bool(),
  exclude_direct: param.bool(),
  tagged: param.text({ maxChars: 100 }),
})

/** POST /api/v1/accounts/:id/follow */
export const followParams = z.object({ reblogs: param.bool(), notify: param.bool(), languages: param.list() })

/** POST /api/v1/accounts/:id/mute */
export const muteParams = z.object({ notifications: param.bool(), duration: param.int() })

const profileField = {
  type: 'object',
  properties: { name: { type: 'string' }, value: { type: 'string' } },
}

/**
 * PATCH /api/v1/accounts/update_credentials — validated by the handler, which answers 422 with `details` and
 * ignores invalid `source[...]` settings, as Mastodon.
 */
export const updateCredentialsParams = z.object({
  display_name: param.checkedByHandler({ type: 'string' }),
  note: param.checkedByHandler({ type: 'string' }),
  locked: param.checkedByHandler({ type: 'boolean' }),
  bot: param.checkedByHandler({ type: 'boolean' }),
  discoverable: param.checkedByHandler({ type: 'boolean' }),
  hide_collections: param.checkedByHandler({ type: 'boolean' }),
  indexable: param.checkedByHandler({ type: 'boolean' }),
  fields_attributes: param.checkedByHandler({
    description: 'Up to 4 profile fields, as a list or a hash keyed "0".."3"',
    oneOf: [
      { type: 'array', items: profileField },
      { type: 'object', additionalProperties: profileField },
    ],
  }),
  source: param.checkedByHandler({
    type: 'object',
    properties: {
      privacy: { type: 'string', enum: ['public', 'unlisted', 'private'] },
      sensitive: { type: 'boolean' },
      language: { type: 'string' },
      quote_policy: { type: 'string', enum: ['public', 'followers', 'nobody'] },
    },
  }),
  avatar: param.file('Avatar image'),
  header: param.file('Header image'),
})

/** GET /api/v2/search and /api/v1/search */
export const searchParams = z.object({
  q: param.requiredText(),
  type: param.checkedByHandler({ type: 'string', enum: ['accounts', 'statuses', 'hashtags'] }),
  resolve: param.bool(),
  following: param.bool(),
  account_id: param.text(),
  exclude_unreviewed: param.bool(),
  limit: param.page.limit,
  offset: param.checkedByHandler({ type: 'integer' }),
  max_id: param.page.max_id,
  min_id: param.page.min_id,
})

/** POST and DELETE /api/v1/accounts/aliases (a Roost addition: docs/federation.md, "Moved accounts"). */
export const accountAliasParams = z.object({ acct: param.requiredText({ maxChars: 500 }) })

/** POST /api/v1/accounts/move (a Roost addition, as Mastodon's /settings/migration form). */
export const accountMoveParams = z.object({
  acct: param.requiredText({ maxChars: 500 }),
  current_password: param.requiredText({ maxChars: 1000 }),
})
