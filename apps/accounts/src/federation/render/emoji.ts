import type { Urls } from '../../entities/account'
import { mediaUrl } from '../../entities/account'

/**
 * A custom emoji as Mastodon's ActivityPub::EmojiSerializer writes it in a Note's or an actor's `tag`
 * (docs/emoji.md): `{id, type: 'Emoji', name: ':code:', updated, icon: {type: 'Image', mediaType, url}}`. The id is
 * `/emojis/<id>` as Mastodon's, where the same object is served (api/federation/emojis.ts).
 */
export function emojiTag(
  urls: Urls,
  e: {
    id?: string
    shortcode: string
    file: string
    content_type?: string | null
    updated_at?: string | Date
  },
) {
  return {
    id: `${urls.base}/emojis/${e.id ?? e.shortcode}`,
    type: 'Emoji',
    name: `:${e.shortcode}:`,
    updated: new Date(e.updated_at ?? Date.now()).toISOString().replace('.000Z', 'Z'),
    icon: { type: 'Image', mediaType: e.content_type ?? 'image/png', url: mediaUrl(urls, e.file) },
  }
}
