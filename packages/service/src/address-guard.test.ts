import { createAddressGuard, embeddedIpv4, PrivateAddressError } from './address-guard'

describe('the outgoing address guard', () => {
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
    // Issue #9, finding 12: IPv4 carried in IPv6 spellings, and the other special IPv6 ranges.
    '[::a9fe:a9fe]', // IPv4-compatible 169.254.169.254
    '[::169.254.169.254]',
    '[::ffff:0:a9fe:a9fe]', // SIIT
    '[::ffff:0:169.254.169.254]',
    '[::127.0.0.1]',
    '[::ffff:7f00:1]', // mapped, in hex
    '[::ffff:a9fe:a9fe]',
    '[0:0:0:0:0:ffff:10.0.0.1]',
    '[0000:0000:0000:0000:0000:ffff:0a00:0001]',
    '[64:ff9b::10.0.0.1]', // NAT64
    '[64:ff9b::a9fe:a9fe]',
    '[64:ff9b:1::1]',
    '[::]',
    '[0::1]',
    '[fc00::1]', // unique local
    '[fd12:3456::1]',
    '[fe80::1%25eth0]', // link-local with a zone
    '[febf::1]',
    '[fec0::1]', // site-local
    '[ff02::1]', // multicast
    '[2001:db8::1]',
    '[2002:a9fe:a9fe::1]', // 6to4 of 169.254.169.254
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', // Teredo
    '[100::1]', // discard
    '100.64.0.1',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
  ])('refuses %s', async (host) => {
    await expect(strict(host)).rejects.toBeInstanceOf(PrivateAddressError)
  })

  it('accepts a public address and resolves localhost to a refused one', async () => {
    await expect(strict('93.184.215.14')).resolves.toEqual({ address: '93.184.215.14', family: 4 })
    await expect(strict('localhost')).rejects.toBeInstanceOf(PrivateAddressError)
  })

  it('finds the IPv4 address in every IPv6 spelling that carries one', () => {
    expect(embeddedIpv4('::a9fe:a9fe')).toBe('169.254.169.254')
    expect(embeddedIpv4('::ffff:0:a9fe:a9fe')).toBe('169.254.169.254')
    expect(embeddedIpv4('::127.0.0.1')).toBe('127.0.0.1')
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1')
    expect(embeddedIpv4('64:ff9b::8.8.8.8')).toBe('8.8.8.8')
    expect(embeddedIpv4('::1')).toBeUndefined()
    expect(embeddedIpv4('2606:4700::1')).toBeUndefined()
  })

  it('accepts public IPv6 addresses', async () => {
    await expect(strict('[2606:4700:4700::1111]')).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    })
  })

  it('lets configured ranges through, and only those', async () => {
    const loopback = createAddressGuard('127.0.0.0/8, ::1')
    await expect(loopback('127.0.0.1')).resolves.toEqual({ address: '127.0.0.1', family: 4 })
    await expect(loopback('[::1]')).resolves.toEqual({ address: '::1', family: 6 })
    await expect(loopback('10.0.0.1')).rejects.toBeInstanceOf(PrivateAddressError)
    // The allowed IPv4 range admits its mapped spelling, and nothing else carried in IPv6.
    await expect(loopback('[::ffff:127.0.0.1]')).resolves.toMatchObject({ family: 6 })
    await expect(loopback('[::ffff:10.0.0.1]')).rejects.toBeInstanceOf(PrivateAddressError)
  })

  it('vets IP literals before every request, remembering only those it let through', async () => {
    const loopback = createAddressGuard('127.0.0.0/8')
    for (let i = 0; i < 2; i++) {
      await expect(loopback.vetLiteral('127.0.0.1')).resolves.toBeUndefined()
      await expect(loopback.vetLiteral('10.0.0.1')).rejects.toBeInstanceOf(PrivateAddressError)
      await expect(loopback.vetLiteral('[::ffff:10.0.0.1]')).rejects.toBeInstanceOf(PrivateAddressError)
      await expect(strict.vetLiteral('127.0.0.1')).rejects.toBeInstanceOf(PrivateAddressError)
      await expect(loopback.vetLiteral('push.example')).resolves.toBeUndefined() // a name is vetted by `lookup`
    }
  })
})
