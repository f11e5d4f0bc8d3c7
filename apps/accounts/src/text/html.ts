/**
 * Plain text typed by users as the HTML Mastodon shows for it: escaping, a bio's paragraphs and a profile field's
 * links. The client API's entities, the ActivityPub actor and the pages all write it with these.
 */

/** HTML-escapes plain text typed by users (notes, fields, statuses). */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

const URL_IN_TEXT = /https?:\/\/[^\s<>"']*[^\s<>"'.,;:!?)\]]/g

/**
 * A link as Mastodon's formatter writes it: the scheme (and `www.`) hidden, the first 30 characters shown, the rest
 * hidden behind an ellipsis. `rel="me"` as on profile fields (the default), where it lets other sites verify the link.
 */
export function linkHtml(url: string, rel = 'nofollow noopener me'): string {
  const prefix = /^https?:\/\/(www\.)?/.exec(url)![0]
  const rest = url.slice(prefix.length)
  const shown = rest.slice(0, 30)
  const hidden = rest.slice(30)
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  )
}

/** A profile field value as Mastodon renders it: escaped text with its http(s) links made clickable. */
export function fieldValueHtml(text: string): string {
  let html = ''
  let last = 0
  for (const match of text.matchAll(URL_IN_TEXT)) {
    html += escapeHtml(text.slice(last, match.index)) + linkHtml(match[0])
    last = match.index + match[0].length
  }
  return (html + escapeHtml(text.slice(last))).replace(/\n/g, '<br>')
}

/** Plain text to Mastodon's note HTML: paragraphs on blank lines, <br> on single newlines. */
export function textToHtml(text: string): string {
  if (!text) return ''
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')
}
