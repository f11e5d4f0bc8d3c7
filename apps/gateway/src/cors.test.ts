import http from 'node:http'
import net from 'node:net'
import { corsHeaders, setSimpleCorsHeaders } from './cors'

const exchange = (method: string) => {
  const req = new http.IncomingMessage(new net.Socket())
  req.method = method
  req.headers = { origin: 'https://app.example' }
  return { req, res: new http.ServerResponse(req) }
}

it('sets on an answer that is not a preflight exactly the headers the cors package sets', () => {
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
    const byPackage = exchange(method)
    let nextCalled = false
    corsHeaders(byPackage.req, byPackage.res, () => (nextCalled = true))
    expect(nextCalled).toBe(true)
    const direct = exchange(method)
    setSimpleCorsHeaders(direct.res)
    expect(direct.res.getHeaders()).toEqual(byPackage.res.getHeaders())
    expect(direct.res.getHeader('access-control-allow-origin')).toBe('*')
  }
})
