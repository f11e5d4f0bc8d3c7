import request from 'supertest'
import { CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_SIGNATURE_HEADER, signClientAddress } from '@roost/auth'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { attackLog, expectRefused } from './helpers'

// Finding 8 of issue #9: a service believed `X-Real-IP` on its own port, so a sign-up block was bypassed by
// sending the request straight to accounts. Services now believe the address only with the gateway's signature.
const log = attackLog('identity-headers')
let stack: Stack
let appToken: string
beforeAll(async () => {
  stack = await startStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } })
  appToken = await stack.appToken('read write')
  // Rows written straight to the table are not published to the gateways: only the service's own check applies.
  await stack.accounts.ctx.db('ip_blocks').insert([
    { ip: '127.0.0.0/8', severity: 'sign_up_block', comment: 'this test' },
    { ip: '::1/128', severity: 'sign_up_block', comment: 'this test' },
  ])
})
afterAll(() => stack.stop())

let names = 0
const newUser = () => {
  const username = `spoof${++names}`
  return { username, email: `${username}@example.test`, password: 'long enough secret', agreement: true }
}
const secret = () => stack.env.GATEWAY_SECRET!
const direct = (headers: Record<string, string>) =>
  log.attempt(
    request(stack.accountsUrl).post('/api/v1/accounts').set(bearer(appToken)).set(headers).send(newUser()),
  )

const SPOOFED = '198.51.100.9'
const ATTEMPTS: [string, () => Record<string, string>][] = [
  ['X-Real-IP alone', () => ({ [CLIENT_ADDRESS_HEADER]: SPOOFED })],
  ['X-Forwarded-For', () => ({ 'X-Forwarded-For': SPOOFED })],
  [
    'a made-up signature',
    () => ({ [CLIENT_ADDRESS_HEADER]: SPOOFED, [CLIENT_ADDRESS_SIGNATURE_HEADER]: `${Date.now()}.AAAA` }),
  ],
  [
    "the gateway's signature of another address",
    () => ({
      [CLIENT_ADDRESS_HEADER]: SPOOFED,
      [CLIENT_ADDRESS_SIGNATURE_HEADER]: signClientAddress(secret(), '198.51.100.10'),
    }),
  ],
  [
    'a signature made with another secret',
    () => ({
      [CLIENT_ADDRESS_HEADER]: SPOOFED,
      [CLIENT_ADDRESS_SIGNATURE_HEADER]: signClientAddress('y'.repeat(40), SPOOFED),
    }),
  ],
  [
    "the gateway's signature, replayed after a minute",
    () => ({
      [CLIENT_ADDRESS_HEADER]: SPOOFED,
      [CLIENT_ADDRESS_SIGNATURE_HEADER]: signClientAddress(secret(), SPOOFED, Date.now() - 61_000),
    }),
  ],
]

describe('identity headers sent straight to a service are not believed', () => {
  it.each(ATTEMPTS)('%s: the sign-up block on the real peer still applies (403)', async (_name, headers) => {
    const res = await direct(headers())
    expectRefused(res, 403)
    expect(res.body).toEqual({ error: 'Forbidden' })
  })

  it('a fresh signature by the gateway is believed (the control)', async () => {
    const res = await direct({
      [CLIENT_ADDRESS_HEADER]: '198.51.100.9',
      [CLIENT_ADDRESS_SIGNATURE_HEADER]: signClientAddress(secret(), '198.51.100.9'),
    })
    expect(res.status).toBe(200)
  })

  it('through the gateway, the address it resolved (from a trusted proxy) is what the service sees', async () => {
    const blocked = await log.attempt(
      stack
        .api()
        .post('/api/v1/accounts')
        .set(bearer(appToken))
        .set('X-Real-IP', '198.51.100.9')
        .send(newUser()),
    )
    expectRefused(blocked, 403) // the gateway overwrote the client's X-Real-IP with the peer, 127.0.0.1
    await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(appToken))
      .set('X-Forwarded-For', '198.51.100.9')
      .send(newUser())
      .expect(200)
  })
})
