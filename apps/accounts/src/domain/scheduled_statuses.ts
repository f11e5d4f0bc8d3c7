import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { AccountRow, ScheduledParams, ScheduledStatusRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import type { NewPoll } from './polls'
import { checkPoll } from './polls'
import type { NewStatus, Visibility } from './statuses'
import { attachableMedia, attachMedia, checkText, replyTarget } from './statuses'
import { quotableStatus } from './quotes'

/** Mastodon's ScheduledStatus limits: scheduled statuses an account may hold, and hold for one (UTC) day. */
export const SCHEDULED_LIMITS = { total: 300, daily: 25 }

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * `scheduled_at` as Rails' `to_datetime` reads the ISO 8601 forms clients send: a date, a time to the minute,
 * second or fraction, and a zone (UTC when none). Anything else (or a date that does not exist) is undefined.
 */
export function parseScheduledAt(text: string): Date | undefined {
  const m = ISO_DATE.exec(text.trim())
  if (!m) return undefined
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '0', zone = 'Z'] = m
  const ms = Number(`0.${frac}`) * 1000
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), ms)
  const check = new Date(utc)
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(sec) > 59
  )
    return undefined
  let offset = 0
  if (zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!
    offset = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0)) * 60_000
  }
  return new Date(utc - offset)
}

/** Mastodon's ScheduledStatus validations: far enough ahead, and within the total and daily limits. */
async function checkSchedule(
  trx: Knex,
  accountId: string,
  scheduledAt: Date,
  minOffsetSeconds: number,
  exceptId?: string,
) {
  const errors: string[] = []
  if (scheduledAt.getTime() <= Date.now() + minOffsetSeconds * 1000)
    errors.push('Scheduled at date must be in the future')
  const others = () => {
    const q = trx('scheduled_statuses').where({ account_id: accountId })
    return exceptId ? q.whereNot({ id: exceptId }) : q
  }
  const [{ total }] = await others().count<{ total: string }[]>('* as total')
  if (Number(total) >= SCHEDULED_LIMITS.total)
    errors.push(`You have exceeded the limit of ${SCHEDULED_LIMITS.total} scheduled posts`)
  const [{ daily }] = await others()
    .whereRaw(`(scheduled_at AT TIME ZONE 'UTC')::date = (?::timestamptz AT TIME ZONE 'UTC')::date`, [
      scheduledAt.toISOString(),
    ])
    .count<{ daily: string }[]>('* as daily')
  if (Number(daily) >= SCHEDULED_LIMITS.daily)
    errors.push(`You have exceeded the limit of ${SCHEDULED_LIMITS.daily} scheduled posts for today`)
  if (errors.length) throw new Invalid(`Validation failed: ${errors.join(', ')}`)
}

/** The timer that publishes it (timers/scheduled_statuses.ts). */
const timePublication = (trx: Knex, row: Pick<ScheduledStatusRow, 'id' | 'scheduled_at'>) =>
  outbox.add(trx, {
    event: 'scheduled_status.due',
    scheduledStatusId: row.id,
    runAt: new Date(row.scheduled_at).toISOString(),
  })

/**
 * Mastodon's PostStatusService with `scheduled_at`: the status is checked as it would be posted (its uploads, the
 * status it replies to, then its text and poll: Mastodon reports a failure of the last two as a bare "Record
 * invalid"), then the schedule; the parameters are stored and its uploads held, and the timer of its publication
 * recorded. The account row is locked, so concurrent requests cannot pass the limits together.
 */
export async function scheduleStatus(
  trx: Knex,
  author: AccountRow,
  status: NewStatus,
  params: ScheduledParams,
  scheduledAt: Date,
  minOffsetSeconds: number,
): Promise<ScheduledStatusRow> {
  await trx('accounts').where({ id: author.id }).forUpdate().first('id')
  await replyTarget(trx, author, status.inReplyToId)
  // A quote is checked now as a post's is (Mastodon 4.5 keeps `quoted_status_id` in the params), and again when posted.
  if (status.quotedStatusId !== undefined) await quotableStatus(trx, author, status.quotedStatusId)
  const media = await attachableMedia(trx, author.id, status.mediaIds)
  try {
    checkText(status.text, status.spoilerText, media.length > 0)
    if (status.poll) checkPoll(status.poll)
  } catch (err) {
    if (err instanceof Invalid) throw new Invalid('Record invalid', undefined, { cause: err })
    throw err
  }
  await checkSchedule(trx, author.id, scheduledAt, minOffsetSeconds)
  const [row]: ScheduledStatusRow[] = await trx('scheduled_statuses')
    .insert({ account_id: author.id, scheduled_at: scheduledAt, params: JSON.stringify(params) })
    .returning('*')
  await attachMedia(trx, media, { scheduled_status_id: row!.id })
  await timePublication(trx, row!)
  return row!
}

/** PUT /api/v1/scheduled_statuses/:id: a new time, checked as a new one is (the status itself not counted). */
export async function reschedule(
  trx: Knex,
  row: ScheduledStatusRow,
  scheduledAt: Date,
  minOffsetSeconds: number,
): Promise<ScheduledStatusRow> {
  await trx('accounts').where({ id: row.account_id }).forUpdate().first('id')
  await checkSchedule(trx, row.account_id, scheduledAt, minOffsetSeconds, row.id)
  const [updated]: ScheduledStatusRow[] = await trx('scheduled_statuses')
    .where({ id: row.id })
    .update({ scheduled_at: scheduledAt })
    .returning('*')
  await timePublication(trx, updated!)
  return updated!
}

/** The stored parameters as a status to post now, the author's defaults filling what the client left out. */
export function statusFromParams(
  params: ScheduledParams,
  defaults: {
    visibility: Visibility
    sensitive: boolean
    language: string | null
    quotePolicy?: string
  },
  minPollExpiration: number,
): NewStatus {
  const poll: NewPoll | undefined = params.poll
    ? {
        options: params.poll.options,
        expiresIn: params.poll.expires_in ?? undefined,
        multiple: params.poll.multiple,
        hideTotals: params.poll.hide_totals,
        minExpiration: minPollExpiration,
      }
    : undefined
  return {
    text: params.text ?? '',
    spoilerText: params.spoiler_text ?? '',
    sensitive: params.sensitive ?? defaults.sensitive,
    visibility: params.visibility ?? defaults.visibility,
    language: params.language || defaults.language || null,
    inReplyToId: params.in_reply_to_id ?? undefined,
    mediaIds: params.media_ids ?? [],
    applicationId: params.application_id,
    poll,
    quotedStatusId: params.quoted_status_id ?? undefined,
    quotePolicy: params.quote_approval_policy ?? defaults.quotePolicy ?? 'public',
  }
}
