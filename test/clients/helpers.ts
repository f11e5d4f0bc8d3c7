/** What the client apps ask for: everything a Mastodon app uses, push included (megalodon leaves it out by default). */
export const SCOPES = 'read write follow push'

/** A real 1×1 PNG, for avatar uploads. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)
