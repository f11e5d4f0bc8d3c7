import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import webpush from 'web-push'
import { generateSigningKey } from '../../apps/accounts/src/oauth/keys'

export interface DevSecrets {
  OAUTH_SIGNING_KEYS: string
  SESSION_SECRET: string
  GATEWAY_SECRET: string
  OTP_SECRET: string
  VAPID_PUBLIC_KEY: string
  VAPID_PRIVATE_KEY: string
}

/**
 * Development keys, generated on the first run and kept in `<dataDir>/secrets.json` (mode 0600), so tokens and
 * push subscriptions stay valid across restarts. Never used in production: there they come from the Secret.
 */
export async function devSecrets(dataDir: string): Promise<DevSecrets> {
  const file = path.join(dataDir, 'secrets.json')
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as DevSecrets
    if (kept.GATEWAY_SECRET && kept.OTP_SECRET) return kept
    // Made before the gateway signed client addresses or TOTP secrets were encrypted: add the keys it lacks, keep
    // the others.
    kept.GATEWAY_SECRET ||= randomBytes(32).toString('base64url')
    kept.OTP_SECRET ||= randomBytes(32).toString('base64url')
    writeFileSync(file, JSON.stringify(kept, null, 2), { mode: 0o600 })
    return kept
  }
  const vapid = webpush.generateVAPIDKeys()
  const secrets: DevSecrets = {
    OAUTH_SIGNING_KEYS: JSON.stringify([await generateSigningKey()]),
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    GATEWAY_SECRET: randomBytes(32).toString('base64url'),
    OTP_SECRET: randomBytes(32).toString('base64url'),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
  }
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 })
  console.error(`Generated development keys in ${file}`)
  return secrets
}
