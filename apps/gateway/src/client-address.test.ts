import type { IncomingMessage } from 'node:http'
import { rateLimitSubject } from '@roost/auth'
import { createClientAddressResolver, parseCidr } from './client-address'

const req = (peer: string, xff?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: xff ? { 'x-forwarded-for': xff } : {},
  }) as unknown as IncomingMessage

describe('client address', () => {
  it('uses the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const resolve = createClientAddressResolver([])
    expect(resolve(req('::ffff:192.0.2.1', '8.8.8.8'))).toBe('192.0.2.1')
  })

  it('walks X-Forwarded-For from the right, skipping trusted hops', () => {
    const resolve = createClientAddressResolver(['10.0.0.0/8', '::1'])
    expect(resolve(req('::1', 'forged, 203.0.113.5, 10.1.1.1'))).toBe('203.0.113.5')
    expect(resolve(req('10.0.0.2', '2001:DB8::7'))).toBe('2001:db8::7')
    expect(resolve(req('10.0.0.2', '10.0.0.3, garbage'))).toBe('10.0.0.2')
    expect(resolve(req('10.0.0.2', '10.0.0.3'))).toBe('10.0.0.3')
    expect(resolve(req('192.0.2.9', '203.0.113.5'))).toBe('192.0.2.9')
  })

  it('parses CIDRs and groups IPv6 by /64 for rate limits', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ network: '10.0.0.0', prefix: 8, family: 'ipv4' })
    expect(parseCidr('2001:db8::/129')).toBeUndefined()
    expect(parseCidr('10.0.0.0/8/1')).toBeUndefined()
    expect(rateLimitSubject('192.0.2.1')).toBe('192.0.2.1')
    expect(rateLimitSubject('2001:db8:1:2:3:4:5:6')).toBe('2001:0db8:0001:0002::/64')
    expect(rateLimitSubject('2001:db8:1:2::9')).toBe('2001:0db8:0001:0002::/64')
    expect(rateLimitSubject('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(rateLimitSubject('64:ff9b:1:2::192.0.2.1')).toBe('0064:ff9b:0001:0002::/64')
    expect(rateLimitSubject('::')).toBe('0000:0000:0000:0000::/64')
    expect(rateLimitSubject('unknown')).toBe('unknown')
  })
})
