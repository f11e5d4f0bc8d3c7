import type { Server } from 'node:http'
import express from 'express'
import request from 'supertest'
import { bySpecificity, ROUTES } from '@roost/routes'
import { createRouteIndex } from './route-index'

/**
 * The index must find the route an express Router finds when it is given the whole table most specific first (as
 * the gateway mounted it before): every route's path, with its parameters filled by plain values and by the
 * literal words other routes have at that place (`/api/v1/accounts/relationships` against `/:id`), with a trailing
 * slash and in capitals; HEAD finds GET's route.
 */
describe('the gateway route index', () => {
  const find = createRouteIndex(ROUTES.map((route) => ({ route, value: route })))
  const router = express()
  for (const route of [...ROUTES].sort(bySpecificity))
    router[route.method.toLowerCase() as 'get'](route.path, (_req, res) => {
      res.json({ found: `${route.method} ${route.path}` })
    })
  router.use((_req, res) => {
    res.json({ found: null })
  })
  // One server for every sample: given the app itself, supertest would start and stop a server per request.
  let server: Server
  beforeAll(
    () => new Promise<void>((resolve) => void (server = router.listen(0, '127.0.0.1', () => resolve()))),
  )
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  /** The literal words other routes have where `path` has its parameters, after the same segments. */
  const rivals = (path: string) => {
    const segments = path.split('/')
    return ROUTES.flatMap((other) => {
      const theirs = other.path.split('/')
      const before = (i: number) => segments.slice(0, i).every((s, j) => /[:*]/.test(s) || s === theirs[j])
      return segments.flatMap((segment, i) =>
        /[:*]/.test(segment) && theirs[i] && !/[:*]/.test(theirs[i]!) && before(i) ? [theirs[i]!] : [],
      )
    })
  }
  const samples = [
    ...new Set(
      ROUTES.flatMap((route) => {
        const fill = (value: string) => route.path.replace(/:\w+/g, value).replace(/\*\w+/g, `${value}/more`)
        const plain = fill('123')
        return [plain, `${plain}/`, fill('Abc').toUpperCase(), ...new Set(rivals(route.path)).values()]
          .map((value) => (value.startsWith('/') ? value : fill(value)))
          .map((path) => `${route.method} ${path}`)
      }),
    ),
  ].map((pair) => pair.split(' ') as [string, string])

  it('finds what express finds, for every route of the table', async () => {
    expect(samples.length).toBeGreaterThan(ROUTES.length * 3)
    const agent = request(server)
    const differing: string[] = []
    for (const [method, path] of samples) {
      const res = await agent[method.toLowerCase() as 'get'](path)
      const expected = (res.body as { found: string | null }).found
      const found = find(method, path)?.route
      const actual = found ? `${found.method} ${found.path}` : null
      if (actual !== expected) differing.push(`${method} ${path}: ${actual} vs ${expected}`)
      if (method === 'GET' && find('HEAD', path)?.route !== found) differing.push(`HEAD ${path} is not GET's`)
    }
    expect(differing).toEqual([])
  }, 120_000)

  it('finds nothing for a path no route has, or a method the path does not take', () => {
    expect(find('GET', '/api/v1/nothing-here')).toBeUndefined()
    expect(find('GET', '/')).toBeUndefined()
    expect(find('DELETE', '/api/v1/instance')).toBeUndefined()
    expect(find('GET', '/api/v1/accounts/1/followers/extra')).toBeUndefined()
  })
})
