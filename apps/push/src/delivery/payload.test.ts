import { pushExcerpt, truncate } from '@roost/events'
import { pushPayload } from './payload'

describe('the push payload', () => {
  it('truncates like Rails, to 140 characters ending in ...', () => {
    expect(truncate('short')).toBe('short')
    expect(truncate('a'.repeat(140))).toBe('a'.repeat(140))
    expect(truncate('a'.repeat(141))).toBe(`${'a'.repeat(137)}...`)
  })

  it('is built from an excerpt that events already cut to the body, whitespace folded', () => {
    expect(pushExcerpt('  a\n\n b  ')).toBe('a b')
    expect(pushExcerpt(`${'x '.repeat(200)}`)).toHaveLength(140)
  })

  it('writes notification_id as a JSON number with every digit, even above 2^53', () => {
    const json = pushPayload(
      {
        notificationId: '115123456789012345',
        type: 'admin.sign_up',
        recipientUserId: '1',
        recipientAccountId: '1',
        recipientLocale: 'de',
        senderAccountId: '2',
        senderName: 'Bob',
        senderAvatarUrl: 'https://roost.example/bob.png',
        excerpt: '  hi  ',
        recipientFollowsSender: false,
        senderFollowsRecipient: false,
        createdAt: new Date().toISOString(),
      },
      'the-token',
    )
    expect(json).toContain('"notification_id":115123456789012345,')
    expect(JSON.parse(json)).toMatchObject({
      access_token: 'the-token',
      preferred_locale: 'de',
      notification_type: 'admin.sign_up',
      title: 'Bob signed up',
      body: 'hi',
    })
  })
})
