import {
  activitiesBatch,
  ACTIVITIES_PER_JOB,
  batchActivities,
  mergeNotifications,
  NOTIFICATIONS_PER_JOB,
} from './index'
import type { ActivitiesBatch, NotificationCreated, OutboxEvent } from './index'

let sequence = 0
const notification = (): NotificationCreated => ({
  notificationId: String(++sequence),
  type: 'mention',
  recipientUserId: '1',
  recipientAccountId: '2',
  recipientLocale: 'en',
  senderAccountId: '3',
  senderName: 'Alice',
  senderAvatarUrl: 'https://roost.example/a.png',
  excerpt: 'hi',
  recipientFollowsSender: false,
  senderFollowsRecipient: false,
  createdAt: new Date().toISOString(),
})
const single = (jobId: string) => ({
  event: { event: 'notification.created', ...notification() } as OutboxEvent,
  jobId,
})
const several = (jobId: string, count: number) => ({
  event: {
    event: 'notifications.created',
    notifications: Array.from({ length: count }, notification),
  } as OutboxEvent,
  jobId,
})
const activity = (jobId: string, statusId = '9') => ({
  event: { event: 'status.created', statusId, accountId: '3' } as OutboxEvent,
  jobId,
})
const countOf = (e: OutboxEvent) => ('notifications' in e ? e.notifications.length : 1)

describe('mergeNotifications', () => {
  it('leaves a lone notification and every other event as they are', () => {
    const input = [activity('a'), single('n'), activity('b')]
    expect(mergeNotifications(input)).toEqual(input)
  })

  it('merges the notifications of a publication into one notifications.created, in their order', () => {
    const input = [single('n1'), activity('a'), several('n2', 3), single('n3')]
    const [merged, other] = mergeNotifications(input)
    expect(other).toEqual(input[1])
    expect(merged!.event.event).toBe('notifications.created')
    const ids = (merged!.event as { notifications: NotificationCreated[] }).notifications.map(
      (n) => n.notificationId,
    )
    const expected = [input[0]!, input[2]!, input[3]!].flatMap((p) =>
      'notifications' in p.event
        ? p.event.notifications.map((n) => n.notificationId)
        : [(p.event as NotificationCreated).notificationId],
    )
    expect(ids).toEqual(expected)
    expect(merged!.jobId).toMatch(/^n1\+2-[0-9a-f]{16}$/)
  })

  it('names a merged job by all its events: the same company, the same id; other company, another', () => {
    const [a, b, c] = [single('x1'), single('x2'), single('x3')]
    const id = (input: ReturnType<typeof single>[]) => mergeNotifications(input)[0]!.jobId
    expect(id([a, b, c])).toBe(id([a, b, c]))
    expect(id([a, b, c])).not.toBe(id([a, b]))
    expect(id([a, b, c])).not.toBe(id([a, b, single('x9')]))
  })

  it(`puts at most ${NOTIFICATIONS_PER_JOB} notifications in a job; a larger event stays whole and alone`, () => {
    const input = [
      several('big', NOTIFICATIONS_PER_JOB + 5),
      ...Array.from({ length: NOTIFICATIONS_PER_JOB + 1 }, (_, i) => single(`s${i}`)),
    ]
    const out = mergeNotifications(input)
    expect(out.map((p) => countOf(p.event))).toEqual([NOTIFICATIONS_PER_JOB + 5, NOTIFICATIONS_PER_JOB, 1])
    expect(out[0]).toEqual(input[0])
    expect(out[2]).toEqual(input[input.length - 1])
    expect(out.reduce((n, p) => n + countOf(p.event), 0)).toBe(2 * NOTIFICATIONS_PER_JOB + 6)
  })
})

describe('batchActivities', () => {
  const mail = (jobId: string) => ({ event: { event: 'mail.welcome', userId: '4' } as OutboxEvent, jobId })
  const batched = (e: OutboxEvent | ActivitiesBatch) => (e as ActivitiesBatch).activities

  it('leaves a lone activity and every other event as they are', () => {
    const input = [mail('m'), activity('a'), single('n')]
    expect(batchActivities(input)).toEqual(input)
  })

  it('puts the activities of a publication in one activities.batch, in their order, each with its job id', () => {
    const input = [
      activity('outbox-1', '1'),
      mail('outbox-2'),
      activity('outbox-3', '3'),
      activity('outbox-4', '4'),
    ]
    const [batch, other] = batchActivities(input)
    expect(other).toEqual(input[1])
    expect(batch!.event.event).toBe('activities.batch')
    expect(activitiesBatch.parse(batch!.event)).toEqual(batch!.event)
    expect(batched(batch!.event)).toEqual(
      [input[0]!, input[2]!, input[3]!].map((p) => ({ jobId: p.jobId, activity: p.event })),
    )
    expect(batch!.jobId).toMatch(/^outbox-1\+2-[0-9a-f]{16}$/)
  })

  it('names a batch by all its activities: the same company, the same id; other company, another', () => {
    const [a, b, c] = [activity('x1'), activity('x2'), activity('x3')]
    const id = (input: ReturnType<typeof activity>[]) => batchActivities(input)[0]!.jobId
    expect(id([a, b, c])).toBe(id([a, b, c]))
    expect(id([a, b, c])).not.toBe(id([a, b]))
    expect(id([a, b, c])).not.toBe(id([a, b, activity('x9')]))
  })

  it(`puts at most ${ACTIVITIES_PER_JOB} activities in a batch; one left over is a job of its own`, () => {
    const input = Array.from({ length: 2 * ACTIVITIES_PER_JOB + 1 }, (_, i) => activity(`a${i}`, String(i)))
    const out = batchActivities(input)
    expect(out.map((p) => batched(p.event)?.length ?? 1)).toEqual([ACTIVITIES_PER_JOB, ACTIVITIES_PER_JOB, 1])
    expect(out[2]).toEqual(input[input.length - 1])
    expect(out.flatMap((p) => batched(p.event)?.map((a) => a.jobId) ?? [p.jobId])).toEqual(
      input.map((p) => p.jobId),
    )
  })
})
