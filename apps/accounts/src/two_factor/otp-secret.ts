import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * TOTP secrets at rest (docs/security.md, "Two-factor sign-in"): AES-256-GCM under a key derived from the
 * OTP_SECRET setting, stored as `v1:<iv>:<tag>:<ciphertext>` (each base64), so a copy of the database alone does not
 * give away anyone's second factor. A value without the `v1:` prefix is a secret stored before encryption; it is
 * read as it is and encrypted again by the next code checked (domain/two_factor.ts).
 */
export type OtpKey = Buffer

const PREFIX = 'v1:'

const keys = new Map<string, OtpKey>()

/** The AES key of an OTP_SECRET (HKDF-SHA256, so the setting may be any long random string). */
export function otpKey(otpSecret: string): OtpKey {
  let key = keys.get(otpSecret)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', otpSecret, '', 'roost otp secret v1', 32))
    keys.set(otpSecret, key)
  }
  return key
}

export function sealOtpSecret(secret: string, key: OtpKey): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  const tag = cipher.getAuthTag()
  return `${PREFIX}${iv.toString('base64')}:${tag.toString('base64')}:${data.toString('base64')}`
}

export const isSealed = (stored: string) => stored.startsWith(PREFIX)

/**
 * The base32 secret of a stored value; a value from before encryption is returned as it is. Throws when the value
 * was sealed under another key (OTP_SECRET changed): the caller treats that as a wrong code.
 */
export function openOtpSecret(stored: string, key: OtpKey): string {
  if (!isSealed(stored)) return stored
  const [iv, tag, data] = stored.slice(PREFIX.length).split(':')
  if (iv === undefined || tag === undefined || data === undefined) throw new Error('Malformed OTP secret')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'))
  decipher.setAuthTag(Buffer.from(tag, 'base64'))
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8')
}
