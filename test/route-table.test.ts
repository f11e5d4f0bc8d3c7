import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3_1 } from 'openapi-types'
import type { Request } from 'express'
import { openApiPath, postStatusParams, readParams, reblogParams, ROUTES, serviceRoutes } from '@roost/routes'
import type { Route } from '@roost/routes'
import { RATE_LIMIT_FAMILIES } from '../apps/gateway/src/rate-limit'
import { bearer, startStack } from './stack'
import type { Stack } from './stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const name = (r: Route) => `${r.method} ${r.path} (${r.upstream})`
/** `/accounts/:id` and `/accounts/:account_id` are the same route to express. */
const shape = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path.replace(/:[^/]+/g, ':param')}`

describe('the route table (packages/routes/src/table.ts) and the services', () => {
  it('every table route is registered with real handlers by its upstream service', () => {
    const registered = {
      accounts: stack.accounts.routes(),
      push: stack.push.routes(),
      streaming: stack.streaming.routes(),
    }
    const missing = ROUTES.filter(
      (route) => route.upstream !== 'gateway' && !registered[route.upstream].includes(route),
    ).map(name)
    expect(missing).toEqual([])
  })

  it('every registered route is a table route of that service, registered once', () => {
    for (const [upstream, routes] of [
      ['accounts', stack.accounts.routes()],
      ['push', stack.push.routes()],
      ['streaming', stack.streaming.routes()],
    ] as const) {
      expect(routes.filter((r) => !ROUTES.includes(r) || r.upstream !== upstream).map(name)).toEqual([])
      expect(routes.filter((r, i) => routes.indexOf(r) !== i).map(name)).toEqual([])
    }
  })

  it('no two table routes share a method and path', () => {
    const seen = new Map<string, Route>()
    const clashes: string[] = []
    for (const route of ROUTES) {
      const key = shape(route)
      const earlier = seen.get(key)
      if (earlier) clashes.push(`${name(earlier)} and ${name(route)}`)
      seen.set(key, route)
    }
    expect(clashes).toEqual([])
  })

  it('a service cannot register a route the table does not give it (checked at start-up)', () => {
    const accounts = serviceRoutes('accounts', stack.accounts.ctx.verify)
    expect(() => accounts.get('/api/v1/not_in_the_table', () => {})).toThrow(
      'GET /api/v1/not_in_the_table is not in the route table for accounts (packages/routes/src/table.ts)',
    )
    // A table path with another method, and another service's route, are refused too.
    expect(() => accounts.delete('/api/v1/apps', () => {})).toThrow(/not in the route table for accounts/)
    expect(() => accounts.get('/api/v1/push/subscription', () => {})).toThrow(
      /not in the route table for accounts/,
    )
    const push = serviceRoutes('push', stack.accounts.ctx.verify)
    expect(() => push.get('/api/v1/accounts/verify_credentials', () => {})).toThrow(
      /not in the route table for push/,
    )
    // A table route of the service is accepted.
    expect(() => push.get('/api/v1/push/subscription', () => {})).not.toThrow()
  })
})

describe('route attributes the gateway reads', () => {
  it('every per-route rate-limit family counts at least one route of the table', () => {
    const named = new Set(ROUTES.flatMap((r) => r.rateLimit ?? []))
    const perRoute = RATE_LIMIT_FAMILIES.map((f) => f.name).filter((n) => !n.startsWith('api_'))
    expect(perRoute.filter((n) => !named.has(n as never))).toEqual([])
  })

  it('uploads, sign-up and the per-account families sit on the routes Mastodon applies them to', () => {
    const of = (attribute: (r: Route) => unknown) =>
      ROUTES.filter(attribute)
        .map((r) => `${r.method} ${r.path}`)
        .sort()
    expect(of((r) => r.body === 'upload')).toEqual([
      'PATCH /api/v1/accounts/update_credentials',
      // A custom emoji's image (docs/emoji.md).
      'POST /api/v1/admin/custom_emojis',
      'POST /api/v1/media',
      'POST /api/v2/media',
      // A CSV import, up to Mastodon's 20 MB (docs/security.md, "Your data").
      'POST /settings/imports',
      // A new `thumbnail` (docs/media.md, "Video, audio and GIFs").
      'PUT /api/v1/media/:id',
    ])
    // The invite page's form signs up too (docs/security.md, "Invites").
    expect(of((r) => r.signUp)).toEqual(['POST /api/v1/accounts', 'POST /invite/:code'])
    // Mastodon counts edits in the statuses family too.
    expect(of((r) => r.rateLimit?.includes('statuses'))).toEqual([
      'PATCH /api/v1/statuses/:id',
      'POST /api/v1/statuses',
      'POST /api/v1/statuses/:id/reblog',
      'PUT /api/v1/statuses/:id',
    ])
  })
})

describe('the OpenAPI document (GET /api/openapi.json, built from the table and the params schemas)', () => {
  let document: OpenAPIV3_1.Document
  beforeAll(async () => {
    const res = await stack.api().get('/api/openapi.json').expect(200)
    document = res.body
  })
  const operations = (doc: OpenAPIV3_1.Document) =>
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
    )

  it('documents every route of the table, and nothing else', () => {
    const table = ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`).sort()
    expect(operations(document).sort()).toEqual(table)
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0')
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy()
  })

  it('shows each route’s scopes as its security and its schema’s parameters', () => {
    const follow = document.paths!['/api/v1/accounts/{id}/follow']!.post!
    expect(follow.security).toEqual([{ OAuth2: ['write:follows'] }])
    const body = (follow.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json']!.schema!
    expect(Object.keys((body as OpenAPIV3_1.SchemaObject).properties!)).toEqual([
      'reblogs',
      'notify',
      'languages',
    ])
    const timeline = document.paths!['/api/v1/timelines/public']!.get!
    expect(timeline.security).toEqual([{}, { OAuth2: ['read:statuses'] }])
    const names = (timeline.parameters as OpenAPIV3_1.ParameterObject[]).map((p) => p.name)
    expect(names).toEqual(expect.arrayContaining(['limit', 'max_id', 'local', 'only_media']))
    const search = document.paths!['/api/v2/search']!.get!.parameters as OpenAPIV3_1.ParameterObject[]
    expect(search.find((p) => p.name === 'q')!.required).toBe(true)
    expect(document.paths!['/api/v1/accounts/relationships']!.get!.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'id[]', in: 'query' })]),
    )
    expect(document.paths!['/oauth/token']!.post!.security).toEqual([])
  })

  it('a document missing a table route, or with a route the table lacks, fails the comparison', () => {
    const table = ROUTES.map((r) => `${r.method} ${openApiPath(r.path)}`).sort()
    const missing = structuredClone(document)
    delete missing.paths!['/api/v1/blocks']
    expect(operations(missing).sort()).not.toEqual(table)
    const extra = structuredClone(document)
    extra.paths!['/api/v1/not_in_the_table'] = { get: { responses: {} } }
    expect(operations(extra).sort()).not.toEqual(table)
  })
})

describe('reading parameters (readParams with the route’s schema)', () => {
  let token: string
  beforeAll(async () => {
    token = await stack.userToken()
  })

  it('answers a value of the wrong shape with Rails’ 400 naming the parameter', async () => {
    const res = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(token))
      .send({ status: { nested: true } })
      .expect(400)
    expect(res.body).toEqual({ error: 'param is missing or the value is empty or invalid: status' })
    const search = await stack.api().get('/api/v2/search?q=%20').set(bearer(token)).expect(400)
    expect(search.body.error).toBe('param is missing or the value is empty or invalid: q')
  })

  it('answers the schema’s own checks with 422 "Validation failed: …"', async () => {
    const res = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(token))
      .type('form')
      .send('status=hi&visibility=everyone')
      .expect(422)
    expect(res.body).toEqual({ error: 'Validation failed: Visibility is not included in the list' })
    const long = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(token))
      .send({ status: 'hi', language: 'a'.repeat(9) })
      .expect(422)
    expect(long.body.error).toBe('Validation failed: language is too long (maximum is 8 characters)')
  })

  it('reads query, JSON, forms with Rails brackets and multipart alike', async () => {
    const query = await stack
      .api()
      .get('/api/v1/accounts/relationships?id[]=1&id[]=2')
      .set(bearer(token))
      .expect(200)
    expect(query.body).toEqual([])
    const form = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(token))
      .field('status', 'multipart post')
      .field('sensitive', 'true')
      .expect(200)
    expect(form.body.sensitive).toBe(true)
  })

  it('a handler cannot read its parameters with another schema than its route’s', () => {
    const reblog = ROUTES.find((r) => r.params === reblogParams)!
    const req = { apiRoute: reblog, method: 'POST', path: '/api/v1/statuses/1/reblog', query: {}, body: {} }
    expect(() => readParams(req as unknown as Request, postStatusParams)).toThrow(
      "POST /api/v1/statuses/1/reblog reads its parameters with a schema that is not its route's",
    )
    expect(readParams(req as unknown as Request, reblogParams)).toEqual({})
  })
})
