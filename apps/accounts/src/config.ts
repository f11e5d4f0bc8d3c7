import { z } from 'zod'
import { baseEnv, envFlag, envPort, parseConfig } from '@roost/service'

/** The accounts service's environment (documented in .env.example). */
export const accountsEnv = baseEnv.extend({
  ACCOUNTS_PORT: envPort(3001),
  /** A JSON array of private JWKs (ES256, each with a `kid`); the first signs, all verify (key rotation). */
  OAUTH_SIGNING_KEYS: z.string().min(1),
  /** The legacy password grant (removed from Mastodon in 4.4): for development and tests only. */
  OAUTH_PASSWORD_GRANT: envFlag(false),
  /** Signs the sign-in session cookie of the OAuth pages. */
  SESSION_SECRET: z.string().min(32),
  /** The server's VAPID public key, shown to apps as `vapid_key`. */
  VAPID_PUBLIC_KEY: z.string().default(''),
  /** Where uploaded avatars, headers and attachments are kept (served back at /media/<file>). */
  MEDIA_DIR: z.string().default('.data/media'),
})

export type AccountsConfig = z.infer<typeof accountsEnv>

export const loadAccountsConfig = (env: Record<string, string | undefined>) => parseConfig(accountsEnv, env)
