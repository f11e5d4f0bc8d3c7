/**
 * The HTML of statuses from other servers, rebuilt from an allow-list as Mastodon's Sanitize::Config::MASTODON_STRICT
 * does (docs/federation.md, "Incoming statuses"): only text and the elements below survive, links keep only
 * http(s) and a few other safe schemes, classes only microformats and Mastodon's own, and every link opens apart
 * (`rel="nofollow noopener"`, `tag` kept for hashtags, `target="_blank"`). Whatever else comes (scripts, styles, event handlers, images,
 * iframes) is dropped; the text of unknown elements is kept, that of script-like ones is not. The output is written
 * by this code, never copied, so it is always well formed.
 */
const ELEMENTS = new Set([
  'p',
  'br',
  'span',
  'a',
  'del',
  's',
  'pre',
  'blockquote',
  'code',
  'b',
  'strong',
  'u',
  'i',
  'em',
  'ul',
  'ol',
  'li',
])
const VOID = new Set(['br'])
/** Headings become a paragraph in bold (Mastodon's UNSUPPORTED_ELEMENTS_TRANSFORMER). */
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
/** Elements whose content is dropped with them. */
const DROP_CONTENT = new Set(['script', 'style', 'iframe', 'noscript', 'svg', 'math', 'template', 'object'])
const PROTOCOLS = /^(?:https?|dat|dweb|ipfs|ipns|ssb|gopher|xmpp|magnet|gemini):/i
const CLASS = /^(?:(?:h|p|u|dt|e)-[a-z-]+|mention|hashtag|ellipsis|invisible)$/

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? whole
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
      ? String.fromCodePoint(code)
      : ''
  })
}

const escapeText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const escapeAttr = (t: string) => escapeText(t).replace(/"/g, '&quot;')

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<|[^<]+/g
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g

export function attributesOf(source: string): Map<string, string> {
  const attrs = new Map<string, string>()
  for (const m of source.matchAll(ATTRIBUTE)) {
    const name = m[1]!.toLowerCase()
    if (!attrs.has(name)) attrs.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''))
  }
  return attrs
}

function openTag(name: string, attrs: Map<string, string>): string {
  const out: string[] = []
  const classes = (attrs.get('class') ?? '')
    .split(/\s+/)
    .filter((c) => CLASS.test(c))
    .join(' ')
  if (name === 'a') {
    const href = (attrs.get('href') ?? '').trim()
    if (PROTOCOLS.test(href)) out.push(`href="${escapeAttr(href)}"`)
    // A hashtag link keeps its `tag` (Mastodon's LINK_REL_TRANSFORMER).
    const tag = (attrs.get('rel') ?? '').split(/\s+/).includes('tag') ? 'tag ' : ''
    out.push(`rel="${tag}nofollow noopener"`, 'target="_blank"')
  }
  if ((name === 'a' || name === 'span') && classes) out.push(`class="${escapeAttr(classes)}"`)
  if ((name === 'a' || name === 'span') && attrs.get('translate') === 'no') out.push('translate="no"')
  if (name === 'ol') {
    const start = attrs.get('start')
    if (start && /^-?\d{1,9}$/.test(start)) out.push(`start="${start}"`)
    if (attrs.has('reversed')) out.push('reversed')
  }
  if (name === 'li') {
    const value = attrs.get('value')
    if (value && /^-?\d{1,9}$/.test(value)) out.push(`value="${value}"`)
  }
  return `<${name}${out.length ? ` ${out.join(' ')}` : ''}>`
}

export function sanitizeHtml(html: string): string {
  const out: string[] = []
  const open: string[] = []
  let dropping: string | undefined
  for (const m of html.matchAll(TOKEN)) {
    const [whole, slash, rawName, attrs] = m
    if (whole.startsWith('<!--')) continue
    if (rawName === undefined) {
      if (!dropping) out.push(escapeText(decodeEntities(whole)))
      continue
    }
    const name = rawName.toLowerCase()
    if (dropping) {
      if (slash && name === dropping) dropping = undefined
      continue
    }
    if (DROP_CONTENT.has(name)) {
      if (!slash && !/\/\s*$/.test(attrs ?? '')) dropping = name
      continue
    }
    if (HEADINGS.has(name)) {
      if (!slash) {
        out.push('<p><strong>')
        open.push(name)
        continue
      }
      const at = open.lastIndexOf(name)
      if (at < 0) continue
      while (open.length > at) out.push(closeTag(open.pop()!))
      continue
    }
    if (!ELEMENTS.has(name)) continue
    if (!slash) {
      out.push(openTag(name, attributesOf(attrs ?? '')))
      if (!VOID.has(name)) open.push(name)
      continue
    }
    const at = open.lastIndexOf(name)
    if (at < 0) continue
    while (open.length > at) out.push(closeTag(open.pop()!))
  }
  while (open.length) out.push(closeTag(open.pop()!))
  return out.join('')
}

const closeTag = (name: string) => (HEADINGS.has(name) ? '</strong></p>' : `</${name}>`)

/** Plain text of an HTML fragment (a summary, a name): tags dropped, entities decoded. */
export function htmlText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
}
