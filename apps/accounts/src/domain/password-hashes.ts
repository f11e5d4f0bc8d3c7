import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>

// N=2^15, r=8, p=1: OWASP's minimum for scrypt; ~60 ms on one core.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const KEY_LENGTH = 32

/** `scrypt$N$r$p$salt$hash`, base64 parts: the parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scrypt(password, salt, KEY_LENGTH, PARAMS)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$')
  if (kind !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  })
  return timingSafeEqual(actual, expected)
}

/** The length a password must have (Mastodon's Devise `password_length`, 8..72). */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 72

/** What is wrong with a new password (Rails' sentences), or undefined. */
export function newPasswordProblem(password: unknown, confirmation?: unknown): string | undefined {
  if (typeof password !== 'string' || !password) return "Password can't be blank"
  if ([...password].length < PASSWORD_MIN)
    return `Password is too short (minimum is ${PASSWORD_MIN} characters)`
  if ([...password].length > PASSWORD_MAX)
    return `Password is too long (maximum is ${PASSWORD_MAX} characters)`
  if (confirmation !== undefined && confirmation !== password)
    return "Password confirmation doesn't match Password"
  return undefined
}
