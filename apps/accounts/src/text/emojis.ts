/**
 * Custom emoji shortcodes in text (docs/emoji.md), as Mastodon's CustomEmoji: a shortcode is two or more ASCII
 * letters, digits or underscores (SHORTCODE_RE_FRAGMENT), and `:code:` counts only when neither side touches a
 * letter, a digit or another colon (SCAN_RE), so `a:b:c` and `::code::` name nothing.
 */
export const SHORTCODE = /^[a-zA-Z0-9_]{2,}$/

const SCAN = /(?<=[^\p{L}\p{N}:]|^):([a-zA-Z0-9_]{2,}):(?=[^\p{L}\p{N}:]|$)/gu

/** The shortcodes `texts` use, each once, in the order they first appear. */
export function shortcodesIn(...texts: (string | null | undefined)[]): string[] {
  const found = new Set<string>()
  for (const text of texts) if (text) for (const m of text.matchAll(SCAN)) found.add(m[1]!)
  return [...found]
}

/** The text of a profile that may name emojis (Mastodon's `Account#emojifiable_text`). */
export const profileTexts = (account: {
  display_name: string
  note: string
  fields: { name: string; value: string }[]
}) => [account.note, account.display_name, ...account.fields.flatMap((f) => [f.name, f.value])]
