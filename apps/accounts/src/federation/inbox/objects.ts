/**
 * Objects other than notes (docs/federation.md, "Articles, videos, events and other objects"), converted as
 * Mastodon's status parser converts them (`converted_object_type?`, `processed_text`): an Article, Page, Image,
 * Audio, Video or Event becomes a status whose text is its title as a heading, its summary, and a link to it (its
 * `url`, else its id); its `content` is not shown and its summary is no content warning. The heading is made a
 * paragraph in bold by the sanitizer, as Mastodon's does (sanitize.ts).
 */

type Json = Record<string, unknown>

/** Mastodon's ActivityPub::Activity::CONVERTED_TYPES. */
export const CONVERTED_TYPES = new Set(['Image', 'Audio', 'Video', 'Article', 'Page', 'Event'])

const typesOf = (object: Json) => (Array.isArray(object.type) ? object.type : [object.type]).map(String)

/** Whether an object is one Mastodon converts (its type, or one of its types, is in CONVERTED_TYPES). */
export const isConverted = (object: Json) => typesOf(object).some((t) => CONVERTED_TYPES.has(t))

/** The first string of a property or of its language map (`name`/`nameMap`, `summary`/`summaryMap`). */
function textOrMap(object: Json, key: string): string | undefined {
  const direct = object[key]
  if (typeof direct === 'string' && direct.trim()) return direct
  const map = object[`${key}Map`]
  if (map && typeof map === 'object' && !Array.isArray(map)) {
    const first = Object.values(map as Json).find((v) => typeof v === 'string' && v.trim())
    if (typeof first === 'string') return first
  }
  return undefined
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/**
 * A bare URL as Mastodon's TextFormatter (`linkify`) writes it: a paragraph with the link, its scheme and `www.`
 * hidden, 30 characters shown and the rest hidden behind an ellipsis.
 */
export function linkifyUrl(url: string): string {
  const prefix = /^https?:\/\/(?:www\.)?/i.exec(url)?.[0] ?? ''
  const rest = url.slice(prefix.length)
  const shown = rest.slice(0, 30)
  const hidden = rest.slice(30)
  return (
    `<p><a href="${escapeHtml(url)}" target="_blank" rel="nofollow noopener" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${hidden ? 'ellipsis' : ''}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a></p>`
  )
}

/**
 * Mastodon's `processed_text` of a converted object, before sanitizing: `<h2>title</h2>`, the summary, and the
 * link to the object, each when present, joined by blank lines. `link` is the object's `url` (http(s)), else its id.
 */
export function convertedHtml(object: Json, link: string): string {
  const title = textOrMap(object, 'name')
  const summary = textOrMap(object, 'summary')
  return [title && `<h2>${title}</h2>`, summary, linkifyUrl(link)].filter(Boolean).join('\n\n')
}
