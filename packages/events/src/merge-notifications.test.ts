import { mergeNotifications, NOTIFICATIONS_PER_JOB } from './index'
import type { NotificationCreated, OutboxEvent } from './index'

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
const activity = (jobId: string) => ({
  event: { event: 'status.created', statusId: '9', accountId: '3' } as OutboxEvent,
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
