import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { readParams, updateCredentialsParams } from '@roost/routes'
import { castBoolean, uploadedFile } from '@roost/service'
import type { Params } from '@roost/service'
import * as outbox from '../../../outbox/outbox'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { storeImage } from '../../../media/images'
import type { CurrentUser } from '../../../users/current'
import { requireUser } from '../../../users/current'
import { refreshAccountEmojis } from '../../../domain/custom_emojis'
import { acceptFollowRequest } from '../../../domain/relationships'
import { invalid, text, tooLong, Validation } from '../../../users/validation'
import { credentialAccount } from './verify_credentials'
import { fieldsToVerify } from '../../../federation/profile-links'
import { QUOTE_POLICIES } from '../../../domain/quotes'

// The account model's limits (display name: the column and Mastodon's model say 30; docs/mastodon-compatibility.md, "Accounts").
export const DISPLAY_NAME_MAX = 30
export const NOTE_MAX = 500
export const MAX_FIELDS = 4
export const FIELD_TEXT_MAX = 255
const IMAGE_MAX_BYTES = 8 * 1024 * 1024
const PRIVACIES = new Set(['public', 'unlisted', 'private'])
const LANGUAGE = /^[a-z]{2,3}$/
const BOOLEAN_SETTINGS = ['locked', 'bot', 'discoverable', 'hide_collections', 'indexable'] as const

type Field = AccountRow['fields'][number]

const isObject = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * `fields_attributes` as a hash keyed "0".."3" (forms) or an array (JSON). Pairs with both parts blank are
 * dropped; a field whose value did not change keeps its `verified_at`.
 */
function readFields(raw: unknown, current: Field[], v: Validation): Field[] | undefined {
  const entries = Array.isArray(raw)
    ? raw
    : isObject(raw)
      ? Object.keys(raw)
          .sort((a, b) => Number(a) - Number(b))
          .map((k) => raw[k])
      : undefined
  if (!entries) {
    invalid(v, 'fields')
    return undefined
  }
  const fields: Field[] = []
  for (const entry of entries) {
    const name = isObject(entry) ? text(entry.name ?? '') : null
    const value = isObject(entry) ? text(entry.value ?? '') : null
    if (name === null || value === null || name === undefined || value === undefined) {
      invalid(v, 'fields')
      return undefined
    }
    if (!name.trim() && !value.trim()) continue
    if (name.length > FIELD_TEXT_MAX || value.length > FIELD_TEXT_MAX) {
      tooLong(v, 'fields', FIELD_TEXT_MAX)
      return undefined
    }
    const before = current.find((f) => f.name === name && f.value === value)
    fields.push({ name, value, verified_at: before?.verified_at ?? null })
  }
  if (fields.length > MAX_FIELDS) {
    v.add('fields', 'ERR_TOO_LONG', `is too long (maximum is ${MAX_FIELDS} fields)`)
    return undefined
  }
  return fields
}

async function readImage(ctx: AccountsContext, req: Request, field: 'avatar' | 'header', v: Validation) {
  const file = uploadedFile(req, field)
  if (!file) return undefined
  if (file.size > IMAGE_MAX_BYTES) {
    v.add(field, 'ERR_TOO_LARGE', 'file size must be less than 8 MB')
    return undefined
  }
  // Re-encoded to Mastodon's avatar (400×400) or header (1500×500), without metadata (docs/media.md, "Images").
  return (await storeImage(ctx.media, file.buffer, field)).file
}

/**
 * Unlocking an account accepts every pending request to it, except from silenced accounts (Mastodon's
 * UpdateAccountService#authorize_all_follow_requests; done in the same transaction here, not in a worker).
 */
async function acceptPendingFollowRequests(trx: Knex, current: CurrentUser) {
  const pending = await trx('follow_requests')
    .join('accounts', 'accounts.id', 'follow_requests.account_id')
    .where('follow_requests.target_account_id', current.account.id)
    .whereNull('accounts.silenced_at')
    .orderBy('follow_requests.id')
    .forUpdate()
    .select('follow_requests.*')
  for (const request of pending) await acceptFollowRequest(trx, request)
}

/**
 * PATCH /api/v1/accounts/update_credentials (docs/mastodon-compatibility.md, "Accounts"): absent params leave things unchanged.
 * Account fields are validated (422 with `details`); `source[...]` settings that are not valid are ignored,
 * as Mastodon saves them without raising.
 */
export async function updateCredentials(ctx: AccountsContext, req: Request, res: Response) {
  const current = await requireUser(ctx, req)
  const p = readParams(req, updateCredentialsParams)
  const v = new Validation()
  const account: Partial<Record<keyof AccountRow, unknown>> = {}

  const displayName = text(p.display_name)
  if (displayName === null) invalid(v, 'display_name')
  else if (displayName !== undefined && [...displayName].length > DISPLAY_NAME_MAX)
    tooLong(v, 'display_name', DISPLAY_NAME_MAX)
  else if (displayName !== undefined) account.display_name = displayName

  const note = text(p.note)
  if (note === null) invalid(v, 'note')
  else if (note !== undefined && [...note].length > NOTE_MAX) tooLong(v, 'note', NOTE_MAX)
  else if (note !== undefined) account.note = note

  for (const setting of BOOLEAN_SETTINGS) {
    if (isObject(p[setting]) || Array.isArray(p[setting])) invalid(v, setting)
    else if (castBoolean(p[setting]) !== undefined) account[setting] = castBoolean(p[setting])
  }

  if (p.fields_attributes !== undefined && p.fields_attributes !== '') {
    const fields = readFields(p.fields_attributes, current.account.fields, v)
    if (fields) account.fields = JSON.stringify(fields)
  }

  v.throwIfAny()
  // Files are stored only once everything else is known to be valid, so a refused update leaves no orphans.
  const avatar = await readImage(ctx, req, 'avatar', v)
  const header = await readImage(ctx, req, 'header', v)
  v.throwIfAny()
  if (avatar) account.avatar_file = avatar
  if (header) account.header_file = header

  const user: Record<string, unknown> = {}
  const source = isObject(p.source) ? p.source : {}
  // Mastodon 4.5's default quote policy; like the other settings, a value it does not know is ignored.
  if ((QUOTE_POLICIES as readonly unknown[]).includes(source.quote_policy))
    user.default_quote_policy = source.quote_policy
  if (typeof source.privacy === 'string' && PRIVACIES.has(source.privacy))
    user.default_privacy = source.privacy
  const sensitive = isObject(source.sensitive) ? undefined : castBoolean(source.sensitive)
  if (sensitive !== undefined) user.default_sensitive = sensitive
  if (typeof source.language === 'string' && LANGUAGE.test(source.language))
    user.default_language = source.language

  await ctx.db.transaction(async (trx) => {
    if (Object.keys(account).length)
      await trx('accounts')
        .where({ id: current.account.id })
        .update({ ...account, updated_at: trx.fn.now() })
    if (Object.keys(account).length) {
      const saved: AccountRow = await trx('accounts').where({ id: current.account.id }).first()
      await refreshAccountEmojis(trx, saved.id, null, saved)
      await outbox.add(trx, { event: 'account.updated', accountId: current.account.id })
      // Links to verify (docs/federation.md, "Profile fields"), as Mastodon's UpdateAccountService#check_links.
      if (fieldsToVerify(saved.fields, true, ctx.config.FEDERATION_ALLOW_HTTP).length)
        await outbox.add(trx, { event: 'account.links_changed', accountId: saved.id })
    }
    if (Object.keys(user).length) await trx('users').where({ id: current.user.id }).update(user)
    if (current.account.locked && account.locked === false) await acceptPendingFollowRequests(trx, current)
  })
  res.json(await credentialAccount(ctx, await requireUser(ctx, req)))
}
