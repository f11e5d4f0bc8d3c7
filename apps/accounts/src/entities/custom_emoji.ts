import type { Urls } from './account'

// Built here rather than with account.ts's mediaUrl, which imports this module.
const mediaUrl = (urls: Urls, file: string) => `${urls.media}/${file}`

/**
 * Mastodon's CustomEmoji entity (docs: entities/CustomEmoji): `shortcode`, `url`, `static_url` (the first frame as
 * PNG, or the image itself for a still one), `visible_in_picker`, and `category` when it has one.
 */
export function renderCustomEmoji(
  e: {
    shortcode: string
    file: string
    static_file: string | null
    visible_in_picker: boolean
    category: string | null
  },
  urls: Urls,
) {
  const url = mediaUrl(urls, e.file)
  return {
    shortcode: e.shortcode,
    url,
    static_url: e.static_file ? mediaUrl(urls, e.static_file) : url,
    visible_in_picker: e.visible_in_picker,
    ...(e.category ? { category: e.category } : {}),
  }
}
