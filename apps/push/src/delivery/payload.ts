import { truncate } from '@roost/events'
import type { NotificationCreated, NotificationType } from '@roost/events'

/** English `notification_mailer.<type>.subject` texts (docs/mastodon-compatibility.md, "Web Push"). */
const TITLES: Record<NotificationType, (name: string) => string> = {
  mention: (name) => `You were mentioned by ${name}`,
  status: (name) => `${name} just posted`,
  reblog: (name) => `${name} boosted your post`,
  follow: (name) => `${name} is now following you`,
  follow_request: (name) => `Pending follower: ${name}`,
  favourite: (name) => `${name} favorited your post`,
  poll: (name) => `A poll by ${name} has ended`,
  update: (name) => `${name} edited a post`,
  'admin.sign_up': (name) => `${name} signed up`,
  'admin.report': (name) => `${name} submitted a report`,
  quote: (name) => `${name} quoted your post`,
  quoted_update: (name) => `${name} edited a post you have quoted`,
  // Mastodon has no push alert for a move (no `alerts.move`); the title is only for completeness.
  move: (name) => `${name} has moved to a new account`,
}

/**
 * Mastodon's push payload (`Web::NotificationSerializer`). `notification_id` is a JSON number: its digits are
 * written as they are, so a snowflake id above 2^53 is not rounded on the way out.
 */
export function pushPayload(event: NotificationCreated, accessToken: string): string {
  const fields = JSON.stringify({
    access_token: accessToken,
    preferred_locale: event.recipientLocale,
    notification_id: 0,
    notification_type: event.type,
    icon: event.senderAvatarUrl,
    title: TITLES[event.type](event.senderName),
    body: truncate(event.excerpt.trim()),
  })
  return fields.replace('"notification_id":0', `"notification_id":${BigInt(event.notificationId)}`)
}
