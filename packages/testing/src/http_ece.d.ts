// http_ece ships no types; only the part the push receiver uses.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto'
  export function decrypt(
    buffer: Buffer,
    params: { version: string; privateKey: ECDH; authSecret: string | Buffer; dh?: string; salt?: string },
  ): Buffer
}
