import { createAddressGuard, PrivateAddressError } from './address-guard'

describe('the push address guard', () => {
  const strict = createAddressGuard('')

  it.each([
    '169.254.169.254',
    '10.0.0.1',
    '127.0.0.1',
    '192.168.1.1',
    '::1',
    '[fe80::1]',
    '::ffff:10.0.0.1',
    '0.0.0.0',
  ])('refuses %s', async (host) => {
    await expect(strict(host)).rejects.toBeInstanceOf(PrivateAddressError)
  })

  it('accepts a public address and resolves localhost to a refused one', async () => {
    await expect(strict('93.184.215.14')).resolves.toEqual({ address: '93.184.215.14', family: 4 })
    await expect(strict('localhost')).rejects.toBeInstanceOf(PrivateAddressError)
  })

  it('lets configured ranges through, and only those', async () => {
    const loopback = createAddressGuard('127.0.0.0/8, ::1')
    await expect(loopback('127.0.0.1')).resolves.toEqual({ address: '127.0.0.1', family: 4 })
    await expect(loopback('[::1]')).resolves.toEqual({ address: '::1', family: 6 })
    await expect(loopback('10.0.0.1')).rejects.toBeInstanceOf(PrivateAddressError)
  })
})
