import { isSignedFact, signFact } from './signed-facts'

/**
 * The header in which the gateway tells a service that it has checked the request's token against the revocation
 * list: the signed fact `token-checked\n<token id>` (`signed-facts.ts`). A service that finds it valid, fresh and
 * naming the token it verified skips its own look-up of the list, one Redis round trip per request; without it (a
 * request sent straight to the service, an old or foreign header) the service checks the list itself. It still
 * verifies the token's signature and scopes itself (docs/security.md, "Tokens the gateway checked").
 */
export const TOKEN_CHECKED_HEADER = 'x-roost-token-checked'

/**
 * How long the gateway's word holds. Short, because a revocation made after the gateway's look-up is not in it:
 * someone who captured a header and its token could replay both straight to a service for this long. Hosts
 * whose clocks differ by more fall back to checking the list themselves, which is slower but never wrong.
 */
export const TOKEN_CHECKED_LIFETIME_MS = 5_000

// Not an address's shape (the other fact signed with the same secret): the two signatures stay apart.
const fact = (tokenId: string) => `token-checked\n${tokenId}`

/** The header's value for a token the gateway has just checked. */
export const signTokenChecked = (secret: string, tokenId: string, now = Date.now()) =>
  signFact(secret, fact(tokenId), now)

/** Whether `header` is the gateway's fresh word that it checked the token `tokenId`. */
export const isTokenChecked = (
  secret: string,
  header: string | string[] | undefined,
  tokenId: string,
  now = Date.now(),
) => isSignedFact(secret, header, fact(tokenId), TOKEN_CHECKED_LIFETIME_MS, now)
