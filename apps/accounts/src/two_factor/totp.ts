import { randomInt } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import QRCode from 'qrcode'

/**
 * TOTP (RFC 6238) as authenticator apps know it: SHA-1, 6 digits, 30-second steps, a 160-bit secret shown as
 * base32 and as an otpauth:// URI in a QR code (docs/security.md, "Two-factor sign-in").
 */
const PERIOD = 30

export const newTotpSecret = () => new Secret({ size: 20 }).base32

const totp = (secret: string, label = '', issuer = 'Roost') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) })

/** The otpauth:// URI of the secret, and its QR code as an SVG data URL. */
export async function enrolmentUri(secret: string, label: string, issuer: string) {
  const uri = totp(secret, label, issuer).toString()
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return { uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` }
}

export const SIX_DIGITS = /^\d{6}$/

/**
 * The time step a 6-digit code belongs to, if it is right now or one step either side (clocks drift); undefined
 * otherwise. The caller refuses a step it has already accepted, so a code works once.
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const digits = code.replace(/\s/g, '')
  if (!SIX_DIGITS.test(digits)) return undefined
  const delta = totp(secret).validate({ token: digits, timestamp: now, window: 1 })
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD) + delta
}

/** Recovery codes: ten, each 10 characters of a 32-letter alphabet (50 bits), shown as `xxxxx-xxxxx`. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'
export const RECOVERY_CODE_COUNT = 10

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')
    return `${chars.slice(0, 5)}-${chars.slice(5)}`
  })
}

/** A typed recovery code in its stored form (lower case, with its hyphen), or undefined if it cannot be one. */
export function normalizeRecoveryCode(code: string): string | undefined {
  const chars = code.toLowerCase().replace(/[\s-]/g, '')
  return /^[a-z0-9]{10}$/.test(chars) ? `${chars.slice(0, 5)}-${chars.slice(5)}` : undefined
}
