import { randomBytes } from 'node:crypto'
import http from 'node:http'
import fc from 'fast-check'
import type { Route } from '@roost/routes'

/**
 * Generators of malformed requests for one route of the table, and a raw HTTP sender for them. Everything a
 * client controls is generated: path parameters, query, body in the three encodings Roost reads (JSON,
 * urlencoded with Rails brackets, multipart) or broken ones, the credentials and a few headers.
 */

/** The parameter names Mastodon's endpoints read, so generated bodies reach the handlers' own checks. */
const KNOWN_KEYS = [
  'id',
  'max_id',
  'since_id',
  'min_id',
  'limit',
  'q',
  'type',
  'types',
  'exclude_types',
  'resolve',
  'following',
  'offset',
  'account_id',
  'local',
  'remote',
  'only_media',
  'exclude_replies',
  'exclude_reblogs',
  'pinned',
  'tagged',
  'status',
  'in_reply_to_id',
  'media_ids',
  'sensitive',
  'spoiler_text',
  'visibility',
  'language',
  'description',
  'focus',
  'file',
  'display_name',
  'note',
  'avatar',
  'header',
  'locked',
  'bot',
  'discoverable',
  'source',
  'fields_attributes',
  'reblogs',
  'notify',
  'notifications',
  'duration',
  'client_name',
  'redirect_uris',
  'scopes',
  'website',
  'grant_type',
  'client_id',
  'client_secret',
  'redirect_uri',
  'scope',
  'code',
  'code_verifier',
  'username',
  'password',
  'email',
  'agreement',
  'locale',
  'reason',
  'date_of_birth',
  'token',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'action',
  'csrf_token',
  'subscription',
  'data',
  'policy',
  'ip',
  'severity',
  'comment',
  'expires_in',
  'text',
  'origin',
  'staff',
  'active',
  'pending',
  'disabled',
  'silenced',
  'suspended',
  'by_domain',
  'send_email_notification',
  'report_id',
  'warning_preset_id',
] as const

/** Values that have broken servers before: numbers beyond bigint, NUL bytes, bad encodings, huge and odd text. */
const NASTY = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e309',
  'NaN',
  'Infinity',
  '9223372036854775807',
  '9223372036854775808',
  '9999999999999999999',
  '99999999999999999999999999',
  '-9223372036854775809',
  'true',
  'false',
  'null',
  'undefined',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '%00',
  '%ZZ',
  '\uD800',
  '\uFFFF',
  '\u202Eevil',
  '😀'.repeat(600),
  'a'.repeat(70_000),
  '../../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  'http://169.254.169.254/latest/meta-data/',
  'urn:ietf:wg:oauth:2.0:oob',
  'javascript:alert(1)',
  '192.0.2.0/24',
  '2001:db8::/32',
  '::ffff:0:0/96',
  '0.0.0.0/0',
  'read write follow push admin:read admin:write',
  'client_credentials',
  'password',
  'authorization_code',
  'all',
  'public',
  'direct',
  'mention',
  'follow',
  'no_access',
  'sign_up_block',
  'suspend',
  'silence',
  'disable',
  'none',
  '2026-01-01',
  '1900-13-45',
] as const

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates included, which encodeURIComponent refuses). */
function percent(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8'))
    out += /[\w.~-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).padStart(2, '0')}`
  return out
}

export interface Fixtures {
  /** Ids that exist (statuses, accounts, media, notifications, IP blocks, follow requests…). */
  ids: string[]
  /** Files that exist under /media. */
  files: string[]
  tokens: string[]
}

const scalar = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
)

/** The parameters most endpoints read: pagination and the usual text fields, drawn more often. */
const HOT_KEYS = [
  'max_id',
  'since_id',
  'min_id',
  'limit',
  'q',
  'id',
  'status',
  'display_name',
  'note',
  'exclude_types',
  'types',
  'account_id',
  'media_ids',
  'in_reply_to_id',
] as const

const key = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOT_KEYS) },
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN_KEYS) },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
  },
)

/** JSON values, scalars and nested objects and arrays of known keys. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: scalar },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, 2 ** 63, -0) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(key, tie('value'), { maxKeys: 5 }) },
  ),
})).value

const jsonObject = fc.dictionary(key, jsonValue, { maxKeys: 8 })

/** Rails-style form fields: `a`, `a[]`, `a[b]`, `a[0][b]`, broken brackets. */
const formKey = fc.oneof(
  key,
  fc.tuple(key, key).map(([a, b]) => `${a}[${b}]`),
  key.map((a) => `${a}[]`),
  fc.tuple(key, fc.nat(3), key).map(([a, i, b]) => `${a}[${i}][${b}]`),
  fc.constantFrom('a[', 'a]', '[]', 'a[b', 'a[][]', 'a[[b]]', '[', '='),
)
const formFields = fc.array(fc.tuple(formKey, scalar), { maxLength: 10 })

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'urlencoded'; fields: [string, string][] }
  | { kind: 'multipart'; fields: [string, string][]; file?: { field: string; bytes: number[]; type: string } }
  | { kind: 'raw'; contentType: string; bytes: number[] }

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 3,
    arbitrary: fc.oneof(jsonObject, jsonValue).map((value) => ({ kind: 'json' as const, value })),
  },
  { weight: 3, arbitrary: formFields.map((fields) => ({ kind: 'urlencoded' as const, fields })) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('multipart' as const),
        fields: formFields,
        file: fc.record({
          field: fc.constantFrom('file', 'avatar', 'header', 'thumbnail', 'x'),
          bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }),
          type: fc.constantFrom('image/png', 'image/jpeg', 'text/plain', 'application/octet-stream', ''),
        }),
      },
      { requiredKeys: ['kind', 'fields'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      contentType: fc.constantFrom(
        'application/json',
        'application/json; charset=latin1',
        'application/json; charset=utf-7',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'multipart/form-data; boundary=x',
        'multipart/form-data; boundary=',
        'text/plain',
        'application/xml',
        '',
        ';;;',
      ),
      bytes: fc.oneof(
        fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 200 }),
        fc
          .constantFrom(
            '{"a":',
            '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n',
            '--x\r\nbroken\r\n\r\n--x--',
            '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n',
            'a=%ZZ&b=%',
            'a[b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v][w][x][y][z]=1',
            'garbage',
            '['.repeat(20_000),
            `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
            '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
            '{"status":"a\\u0000b","display_name":"\\u0000"}',
          )
          .map((s) => [...Buffer.from(s)]),
      ),
    }),
  },
)

export interface FuzzRequest {
  method: string
  path: string
  target: 'gateway' | 'service'
  upstream: Route['upstream']
  /** `METHOD /path/:pattern`, for reports. */
  route: string
  headers: Record<string, string>
  body: Body
}

/** A path parameter: an existing id, a number out of range, or anything at all, percent-encoded or not. */
function pathParameter(fixtures: Fixtures, name: string) {
  const existing = name === 'file' ? fixtures.files : fixtures.ids
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...existing) },
    { weight: 3, arbitrary: scalar.map(percent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%ZZ',
        '%',
        '%00',
        '..%2f..%2fetc%2fpasswd',
        '%E0%A4%A',
        '%C0%AF',
        '.',
        '..',
      ),
    },
  )
}

// Short values in the query: a 70 kB query string only tests node's header limit (431), once is enough.
const query = fc.array(
  fc.tuple(
    formKey,
    scalar.filter((v) => v.length < 2000),
  ),
  { maxLength: 6 },
)

function credentials(fixtures: Fixtures) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...fixtures.tokens).map((t) => `Bearer ${t}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer x.y.z',
        'Bearer eyJhbGciOiJub25lIn0.e30.',
        'Basic',
        'Basic %ZZ',
        `Basic ${Buffer.from('%ZZ:x').toString('base64')}`,
        `Basic ${Buffer.from(':').toString('base64')}`,
        `Basic ${Buffer.from('a:%E0%A4%A').toString('base64')}`,
        'Negotiate abc',
      ),
    },
  )
}

const cookie = fc.constantFrom(
  undefined,
  undefined,
  undefined,
  'roost_session=%E0%A4%A',
  'roost_session=1.2.3',
  'roost_session=é.é.é',
  'roost_admin_token=x',
  'a=%',
  '=;;=',
)

export function requestFor(route: Route, fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const names = route.path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1))
  return fc
    .record({
      params: fc.tuple(...names.map((n) => pathParameter(fixtures, n))),
      query,
      target: fc.constantFrom('gateway' as const, 'service' as const),
      authorization: credentials(fixtures),
      cookie,
      realIp: fc.constantFrom(undefined, undefined, '1.2.3.4', 'not an address', '::1'),
      body: route.method === 'GET' ? fc.constant<Body>({ kind: 'none' }) : body,
    })
    .map(({ params, query, target, authorization, cookie, realIp, body }) => {
      let i = 0
      const path = route.path.replace(/:\w+/g, () => params[i++]!)
      const qs = query.map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&')
      const headers: Record<string, string> = { Accept: 'application/json' }
      if (authorization) headers.Authorization = authorization
      if (cookie) headers.Cookie = cookie
      if (realIp) headers['X-Real-IP'] = realIp
      return {
        method: route.method,
        path: qs ? `${path}?${qs}` : path,
        target,
        upstream: route.upstream,
        route: `${route.method} ${route.path}`,
        headers,
        body,
      }
    })
}

function encode(body: Body): { contentType?: string; bytes?: Buffer } {
  switch (body.kind) {
    case 'none':
      return {}
    case 'json':
      return {
        contentType: 'application/json',
        bytes: Buffer.from(JSON.stringify(body.value) ?? 'null'),
      }
    case 'urlencoded':
      return {
        contentType: 'application/x-www-form-urlencoded',
        bytes: Buffer.from(body.fields.map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&')),
      }
    case 'multipart': {
      const boundary = `----roostfuzz${randomBytes(8).toString('hex')}`
      const parts: Buffer[] = body.fields.map(([k, v]) =>
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
      )
      if (body.file)
        parts.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${body.file.field}"; filename="f.png"\r\n` +
              `Content-Type: ${body.file.type}\r\n\r\n`,
          ),
          Buffer.from(body.file.bytes),
          Buffer.from('\r\n'),
        )
      parts.push(Buffer.from(`--${boundary}--\r\n`))
      return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) }
    }
    case 'raw':
      return { contentType: body.contentType || undefined, bytes: Buffer.from(body.bytes) }
  }
}

export interface FuzzResponse {
  status: number
  contentType: string
  body: string
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })

/** Sends one request as bytes (no client library normalises anything away). */
export function send(base: string, request: FuzzRequest): Promise<FuzzResponse> {
  const { contentType, bytes } = encode(request.body)
  const url = new URL(base)
  const headers: Record<string, string | number> = { ...request.headers }
  if (contentType) headers['Content-Type'] = contentType
  if (bytes) headers['Content-Length'] = bytes.length
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '')
        if (res.statusCode === 200 && contentType.startsWith('text/event-stream')) {
          // An event stream (the streaming API) does not end: its status and type are the answer.
          res.destroy()
          return resolve({ status: 200, contentType, body: '' })
        }
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(bytes)
  })
}

export const closeAgent = () => agent.destroy()

/** Short, readable form of a request for the failure report. */
export function describeRequest(request: FuzzRequest): string {
  const { contentType, bytes } = encode(request.body)
  const shown = bytes ? bytes.subarray(0, 300).toString('utf8') : ''
  return `${request.method} ${request.path.slice(0, 300)} (${request.target}) ${JSON.stringify(request.headers)} ${contentType ?? ''} ${JSON.stringify(shown)}`
}
