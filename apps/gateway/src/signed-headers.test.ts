import type { IncomingMessage } from 'node:http'
import {
  CLIENT_ADDRESS_HEADER,
  CLIENT_ADDRESS_SIGNATURE_HEADER,
  isTokenChecked,
  TOKEN_CHECKED_LIFETIME_MS,
  trustedClientAddress,
} from '@roost/auth'
import { createHeaderSigners } from './signed-headers'

const at = 1_800_000_000_000

/** Signs `subject` at `at` and again 999 ms later, which must give the same signature; the clock left mocked. */
function signedOnceASecond(sign: (subject: string) => string, subject: string) {
  const now = jest.spyOn(Date, 'now').mockReturnValue(at)
  const signature = sign(subject)
  now.mockReturnValue(at + 999)
  expect(sign(subject)).toBe(signature)
  return { signature, now }
}

describe('signed headers', () => {
  afterEach(() => jest.restoreAllMocks())

  it('signs an address once a second, with a signature the services accept', () => {
    const sign = createHeaderSigners('secret').address
    const { signature, now } = signedOnceASecond(sign, '203.0.113.5')
    const other = sign('198.51.100.1')
    now.mockReturnValue(at + 1000)
    expect(sign('203.0.113.5')).not.toBe(signature)
    now.mockRestore()
    const fromGateway = (address: string, signed: string) =>
      ({
        socket: { remoteAddress: '127.0.0.1' },
        headers: { [CLIENT_ADDRESS_HEADER]: address, [CLIENT_ADDRESS_SIGNATURE_HEADER]: signed },
      }) as unknown as IncomingMessage
    expect(trustedClientAddress(fromGateway('203.0.113.5', signature), 'secret', at + 999)).toBe(
      '203.0.113.5',
    )
    expect(trustedClientAddress(fromGateway('198.51.100.1', other), 'secret', at + 999)).toBe('198.51.100.1')
    expect(trustedClientAddress(fromGateway('198.51.100.1', signature), 'secret', at)).toBe('127.0.0.1')
  })

  it("signs a checked token once a second; a service takes it only for that token, fresh, and with the gateway's secret", () => {
    const { signature: checked, now } = signedOnceASecond(createHeaderSigners('secret').tokenChecked, '41')
    now.mockRestore()
    expect(isTokenChecked('secret', checked, '41', at + TOKEN_CHECKED_LIFETIME_MS)).toBe(true)
    expect(isTokenChecked('secret', checked, '42', at)).toBe(false)
    expect(isTokenChecked('other secret', checked, '41', at)).toBe(false)
    expect(isTokenChecked('secret', checked, '41', at + TOKEN_CHECKED_LIFETIME_MS + 1)).toBe(false)
    expect(isTokenChecked('secret', checked, '41', at - TOKEN_CHECKED_LIFETIME_MS - 1)).toBe(false)
    expect(isTokenChecked('secret', undefined, '41', at)).toBe(false)
    expect(isTokenChecked('secret', [checked, checked], '41', at)).toBe(false)
    // An address signature is no token's: the two MACs are kept apart, though made with one secret.
    const address = createHeaderSigners('secret').address('41')
    expect(isTokenChecked('secret', address, '41', Number(address.split('.')[0]))).toBe(false)
  })
})
