import { gzipSync } from 'node:zlib'
import express from 'express'
import type { RequestHandler } from 'express'
import request from 'supertest'
import { finishApp } from './app'
import { jsonBody, parseJson } from './json'

describe('parseJson', () => {
  it('reads an integer literal beyond 2^53 as its exact decimal text', () => {
    expect(parseJson('117696073402615657')).toBe('117696073402615657')
    expect(parseJson('-117696073402615657')).toBe('-117696073402615657')
    expect(parseJson('9007199254740992')).toBe('9007199254740992') // 2^53: a double, but not a safe integer
    expect(parseJson('99999999999999999999999999')).toBe('99999999999999999999999999')
  })

  it('reads every other number as JSON.parse does', () => {
    for (const text of [
      '0',
      '-0',
      '5',
      '-5',
      '9007199254740991', // 2^53 - 1
      '-9007199254740991',
      '1.5',
      '-0.25',
      '117696073402615657.0', // a decimal, not an integer literal: a number, rounded
      '1e3',
      '1E+3',
      '2.5e-3',
      '1.2e17',
      '1e400',
    ])
      expect(Object.is(parseJson(text), JSON.parse(text))).toBe(true)
  })

  it('applies the rule inside nested arrays and objects, and leaves strings and keys alone', () => {
    const text =
      '{"home":{"last_read_id":117696073402615657},"id":[117696073364932447,5,"117696073364932447"],' +
      '"poll":{"choices":[0,2],"expires_in":600.5},"117696073402615657":[[-117696073402615657,1e20]],"ok":true,"no":null}'
    expect(parseJson(text)).toEqual({
      home: { last_read_id: '117696073402615657' },
      id: ['117696073364932447', 5, '117696073364932447'],
      poll: { choices: [0, 2], expires_in: 600.5 },
      '117696073402615657': [['-117696073402615657', 1e20]],
      ok: true,
      no: null,
    })
  })

  it('keeps JSON.parse’s reading of duplicate keys, __proto__ and escapes', () => {
    for (const text of [
      '{"a":1,"a":2}',
      '{"a":{"b":1},"a":[2]}',
      '{"__proto__":{"polluted":true}}',
      '"\\u00e9\\ud83d\\ude00\\n\\"\\/"',
      ' [ 1 , {"a" : "b"} ] ',
    ])
      expect(parseJson(text)).toEqual(JSON.parse(text))
    const proto = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(Object.keys(proto)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      ' ',
      '{"a":',
      '{"a":1}x',
      '[1,2',
      '[1,]',
      '{a:1}',
      "{'a':1}",
      '01',
      '+1',
      '.5',
      '1.',
      'NaN',
      '"\u0001"',
      '"\\x41"',
      '{"a":1,}',
    ]) {
      expect(() => JSON.parse(text)).toThrow(SyntaxError)
      expect(() => parseJson(text)).toThrow(SyntaxError)
    }
  })
})

describe('jsonBody', () => {
  const echo: RequestHandler = (req, res) => {
    res.json({ type: typeof req.body, body: req.body ?? null })
  }
  const appWith = (parser: RequestHandler) => {
    const app = express()
    app.use(parser)
    app.post('/', echo)
    return finishApp(app)
  }
  const ours = appWith(jsonBody({ limit: '1kb' }))
  const expressJson = appWith(express.json({ limit: '1kb', strict: false }))

  const send = (app: express.Express, body: string | Buffer, headers: Record<string, string>) => {
    let req = request(app).post('/')
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value)
    return req.send(body)
  }

  it.each<[string, string | Buffer, Record<string, string>]>([
    ['an object', '{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}', { 'Content-Type': 'application/json' }],
    ['a charset parameter', '{"a":"é"}', { 'Content-Type': 'application/json; charset=utf-8' }],
    ['a top-level string', '"text"', { 'Content-Type': 'application/json' }],
    ['a top-level number', '42', { 'Content-Type': 'application/json' }],
    ['a top-level null', 'null', { 'Content-Type': 'application/json' }],
    ['an empty body', '', { 'Content-Type': 'application/json' }],
    ['whitespace only', '  ', { 'Content-Type': 'application/json' }],
    ['malformed JSON', '{"client_name": "broken",', { 'Content-Type': 'application/json' }],
    ['trailing text', '{"a":1} x', { 'Content-Type': 'application/json' }],
    ['a body over the limit', `{"a":"${'x'.repeat(2000)}"}`, { 'Content-Type': 'application/json' }],
    ['a charset JSON does not allow', '{"a":1}', { 'Content-Type': 'application/json; charset=latin1' }],
    ['an unknown charset', '{"a":1}', { 'Content-Type': 'application/json; charset=utf-9' }],
    ['UTF-16', Buffer.from('{"a":"é"}', 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16le' }],
    ['a UTF-8 byte order mark', '\ufeff{"a":1}', { 'Content-Type': 'application/json' }],
    ['gzip', gzipSync('{"a":1}'), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }],
    [
      'an unknown content encoding',
      '{"a":1}',
      { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' },
    ],
    ['another content type', '{"a":1}', { 'Content-Type': 'text/plain' }],
    ['a +json content type', '{"a":1}', { 'Content-Type': 'application/activity+json' }],
  ])('answers %s as express.json does', async (_name, body, headers) => {
    const [expected, actual] = await Promise.all([
      send(expressJson, body, headers),
      send(ours, body, headers),
    ])
    expect({ status: actual.status, body: actual.body }).toEqual({
      status: expected.status,
      body: expected.body,
    })
  })

  it('answers malformed JSON 400 with the error body the services have always sent', async () => {
    const res = await send(ours, '{"a":', { 'Content-Type': 'application/json' }).expect(400)
    expect(res.body).toEqual({ error: 'The request body is not valid JSON' })
  })

  it('answers nesting too deep for the parser 400, not 500', async () => {
    const app = appWith(jsonBody({ limit: '100kb' }))
    const deep = '['.repeat(40_000) + ']'.repeat(40_000)
    const res = await send(app, deep, { 'Content-Type': 'application/json' }).expect(400)
    expect(res.body).toEqual({ error: 'The request body is not valid JSON' })
  })

  it('hands ids beyond 2^53 to the handler as their exact text', async () => {
    const res = await send(
      ours,
      '{"home":{"last_read_id":117696073402615657},"id":[117696073364932447],"limit":5,"choices":[0,2]}',
      { 'Content-Type': 'application/json' },
    ).expect(200)
    expect(res.body.body).toEqual({
      home: { last_read_id: '117696073402615657' },
      id: ['117696073364932447'],
      limit: 5,
      choices: [0, 2],
    })
  })
})
