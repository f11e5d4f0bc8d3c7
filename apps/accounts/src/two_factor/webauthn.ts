import { randomBytes } from 'node:crypto'
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { Invalid } from '@roost/errors'
import type { AccountsContext } from '../context'
import type { WebauthnCredentialRow } from '../db/rows'

/**
 * Security keys (WebAuthn) as a second factor beside TOTP (docs/security.md, "Two-factor sign-in"), with
 * @simplewebauthn/server: the relying party is this server's PUBLIC_URL (its host the RP ID, its origin the only
 * origin accepted). A challenge lives in Redis for 5 minutes, one per user and purpose, and is used once.
 */
const CHALLENGE_TTL_S = 300

/** The library, loaded at the first use of a security key: most processes never need it (half a second to load). */
const webauthn = () => import('@simplewebauthn/server')
export const WRONG_KEY = 'The security key could not be verified.'

const relyingParty = (ctx: AccountsContext) => {
  const url = new URL(ctx.config.PUBLIC_URL)
  return { rpID: url.hostname, origin: url.origin }
}

const challengeKey = (ctx: AccountsContext, userId: string, purpose: 'register' | 'sign_in') =>
  `${ctx.config.REDIS_PREFIX}:webauthn-challenge:${purpose}:${userId}`

/** Takes the pending challenge (once). */
async function takeChallenge(ctx: AccountsContext, userId: string, purpose: 'register' | 'sign_in') {
  return ctx.redis.getdel(challengeKey(ctx, userId, purpose))
}

const credentialsOf = (ctx: AccountsContext, userId: string): Promise<WebauthnCredentialRow[]> =>
  ctx.db<WebauthnCredentialRow>('webauthn_credentials').where({ user_id: userId }).orderBy('id')

export const hasSecurityKeys = async (ctx: AccountsContext, userId: string) =>
  (await ctx.db('webauthn_credentials').where({ user_id: userId }).first('id')) !== undefined

/** The options of `navigator.credentials.create` for a new key of the user (its existing keys excluded). */
export async function registrationOptions(ctx: AccountsContext, userId: string, username: string) {
  const { rpID } = relyingParty(ctx)
  const existing = await credentialsOf(ctx, userId)
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: ctx.config.INSTANCE_TITLE,
    rpID,
    userName: username,
    userID: new TextEncoder().encode(`roost-user-${userId}`),
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({
      id: c.credential_id,
      transports: c.transports as AuthenticatorTransportFuture[],
    })),
    authenticatorSelection: { residentKey: 'discouraged', userVerification: 'discouraged' },
  })
  await ctx.redis.set(challengeKey(ctx, userId, 'register'), options.challenge, 'EX', CHALLENGE_TTL_S)
  return options
}

const parse = <T>(json: unknown): T | undefined => {
  if (typeof json !== 'string' || json.length > 20_000) return undefined
  try {
    return JSON.parse(json) as T
  } catch {
    return undefined
  }
}

/** Stores a new key from the browser's answer to `registrationOptions`; Invalid when it does not verify. */
export async function registerKey(ctx: AccountsContext, userId: string, response: unknown, nickname: string) {
  const challenge = await takeChallenge(ctx, userId, 'register')
  const body = parse<RegistrationResponseJSON>(response)
  if (!challenge || !body) throw new Invalid(WRONG_KEY)
  const { rpID, origin } = relyingParty(ctx)
  const verification = await (
    await webauthn()
  )
    .verifyRegistrationResponse({
      response: body,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    })
    .catch(() => undefined)
  if (!verification?.verified) throw new Invalid(WRONG_KEY)
  const { credential } = verification.registrationInfo
  await ctx.db('webauthn_credentials').insert({
    user_id: userId,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey),
    sign_count: credential.counter,
    nickname,
    transports: credential.transports ?? [],
  })
}

/** The options of `navigator.credentials.get` at sign-in, naming the user's keys; undefined if they have none. */
export async function signInOptions(ctx: AccountsContext, userId: string) {
  const keys = await credentialsOf(ctx, userId)
  if (!keys.length) return undefined
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID: relyingParty(ctx).rpID,
    allowCredentials: keys.map((c) => ({
      id: c.credential_id,
      transports: c.transports as AuthenticatorTransportFuture[],
    })),
    userVerification: 'discouraged',
    challenge: randomBytes(32),
  })
  await ctx.redis.set(challengeKey(ctx, userId, 'sign_in'), options.challenge, 'EX', CHALLENGE_TTL_S)
  return options
}

/** Whether the browser's answer to `signInOptions` proves one of the user's keys; the key's counter moves on. */
export async function verifyKey(ctx: AccountsContext, userId: string, response: unknown): Promise<boolean> {
  const challenge = await takeChallenge(ctx, userId, 'sign_in')
  const body = parse<AuthenticationResponseJSON>(response)
  if (!challenge || !body || typeof body.id !== 'string') return false
  const key = await ctx
    .db<WebauthnCredentialRow>('webauthn_credentials')
    .where({ user_id: userId, credential_id: body.id })
    .first()
  if (!key) return false
  const { rpID, origin } = relyingParty(ctx)
  const verification = await (
    await webauthn()
  )
    .verifyAuthenticationResponse({
      response: body,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: key.credential_id,
        publicKey: new Uint8Array(key.public_key),
        counter: Number(key.sign_count),
        transports: key.transports as AuthenticatorTransportFuture[],
      },
      requireUserVerification: false,
    })
    .catch(() => undefined)
  if (!verification?.verified) return false
  await ctx
    .db('webauthn_credentials')
    .where({ id: key.id })
    .update({ sign_count: verification.authenticationInfo.newCounter, last_used_at: ctx.db.fn.now() })
  return true
}

/** The user's keys for the settings page. */
export const listKeys = credentialsOf

export async function removeKey(ctx: AccountsContext, userId: string, id: string) {
  if (!/^\d{1,20}$/.test(id)) return 0
  return ctx.db('webauthn_credentials').where({ user_id: userId, id }).delete()
}
