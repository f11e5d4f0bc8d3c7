/**
 * The parts of RFC 8941 (Structured Field Values for HTTP) that HTTP message signatures use (docs/federation.md,
 * "HTTP signatures"): dictionaries whose members are items (strings, tokens, integers, decimals, booleans, byte
 * sequences) or inner lists, each with parameters; and their serialization, which the signature base repeats.
 */

export type BareItem = string | number | boolean | Uint8Array | Token
export type Params = [string, BareItem][]
export interface Item {
  value: BareItem
  params: Params
}
export interface InnerList {
  items: Item[]
  params: Params
}
export type Member = Item | InnerList
/** A token (an unquoted word such as `sha-256` or `?1`'s siblings), kept apart from strings. */
export class Token {
  constructor(readonly value: string) {}
}

export class StructuredFieldError extends Error {}

const KEY = /^[a-z*][a-z0-9_.*-]*/
const TOKEN = /^[A-Za-z*][A-Za-z0-9!#$%&'*+.^_`|~:/-]*/

class Parser {
  private i = 0
  constructor(private readonly s: string) {}
  private get rest() {
    return this.s.slice(this.i)
  }
  private fail(what: string): never {
    throw new StructuredFieldError(`${what} at ${this.i}`)
  }
  private ows() {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++
  }
  private sp() {
    while (this.s[this.i] === ' ') this.i++
  }
  done() {
    this.sp()
    return this.i >= this.s.length
  }
  dictionary(): Map<string, Member> {
    const out = new Map<string, Member>()
    this.sp()
    while (this.i < this.s.length) {
      const key = this.key()
      let member: Member
      if (this.s[this.i] === '=') {
        this.i++
        member = this.member()
      } else member = { value: true, params: this.params() }
      out.set(key, member)
      this.ows()
      if (this.i >= this.s.length) return out
      if (this.s[this.i] !== ',') this.fail('expected a comma')
      this.i++
      this.ows()
      if (this.i >= this.s.length) this.fail('trailing comma')
    }
    return out
  }
  private member(): Member {
    if (this.s[this.i] === '(') return this.innerList()
    return this.item()
  }
  private innerList(): InnerList {
    this.i++
    const items: Item[] = []
    for (;;) {
      this.sp()
      if (this.s[this.i] === ')') {
        this.i++
        return { items, params: this.params() }
      }
      items.push(this.item())
      const c = this.s[this.i]
      if (c !== ' ' && c !== ')') this.fail('bad inner list')
    }
  }
  item(): Item {
    return { value: this.bareItem(), params: this.params() }
  }
  private params(): Params {
    const out: Params = []
    while (this.s[this.i] === ';') {
      this.i++
      this.sp()
      const key = this.key()
      let value: BareItem = true
      if (this.s[this.i] === '=') {
        this.i++
        value = this.bareItem()
      }
      const at = out.findIndex(([k]) => k === key)
      if (at >= 0) out[at] = [key, value]
      else out.push([key, value])
    }
    return out
  }
  private key(): string {
    const m = KEY.exec(this.rest)
    if (!m) this.fail('expected a key')
    this.i += m[0].length
    return m[0]
  }
  private bareItem(): BareItem {
    const c = this.s[this.i]
    if (c === '"') return this.string()
    if (c === ':') return this.bytes()
    if (c === '?') {
      const v = this.s[this.i + 1]
      if (v !== '0' && v !== '1') this.fail('bad boolean')
      this.i += 2
      return v === '1'
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
    const m = TOKEN.exec(this.rest)
    if (!m) this.fail('expected an item')
    this.i += m[0].length
    return new Token(m[0])
  }
  private string(): string {
    let out = ''
    this.i++
    while (this.i < this.s.length) {
      const c = this.s[this.i++]!
      if (c === '\\') {
        const n = this.s[this.i++]
        if (n !== '"' && n !== '\\') this.fail('bad escape')
        out += n
      } else if (c === '"') return out
      else if (c < ' ' || c > '~') this.fail('bad character in string')
      else out += c
    }
    this.fail('unterminated string')
  }
  private bytes(): Uint8Array {
    const end = this.s.indexOf(':', this.i + 1)
    if (end < 0) this.fail('unterminated byte sequence')
    const b64 = this.s.slice(this.i + 1, end)
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) this.fail('bad base64')
    this.i = end + 1
    return new Uint8Array(Buffer.from(b64, 'base64'))
  }
  private number(): number {
    const m = /^-?\d{1,15}(\.\d{1,3})?/.exec(this.rest)
    if (!m) this.fail('bad number')
    this.i += m[0].length
    return Number(m[0])
  }
}

/** An RFC 8941 dictionary; throws StructuredFieldError when it does not parse. */
export function parseDictionary(value: string): Map<string, Member> {
  const p = new Parser(value)
  const out = p.dictionary()
  if (!p.done()) throw new StructuredFieldError('trailing characters')
  return out
}

export const isInnerList = (m: Member): m is InnerList => 'items' in m

export function serializeBareItem(v: BareItem): string {
  if (v instanceof Token) return v.value
  if (typeof v === 'string') return `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`
  if (typeof v === 'boolean') return v ? '?1' : '?0'
  if (typeof v === 'number') return String(v)
  return `:${Buffer.from(v).toString('base64')}:`
}

export const serializeParams = (params: Params) =>
  params.map(([k, v]) => (v === true ? `;${k}` : `;${k}=${serializeBareItem(v)}`)).join('')

export const serializeItem = (item: Item) => serializeBareItem(item.value) + serializeParams(item.params)

export const serializeInnerList = (list: InnerList) =>
  `(${list.items.map(serializeItem).join(' ')})${serializeParams(list.params)}`
