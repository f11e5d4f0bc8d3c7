import type { Response } from 'supertest'

/**
 * Counts the attack requests a test file sends and prints the total when the file ends (`attacks tried in …`),
 * the figure docs/security.md reports. Every attack test sends its hostile requests through `attempt`.
 */
export function attackLog(name: string) {
  let tried = 0
  afterAll(() => process.stdout.write(`attacks tried in ${name}: ${tried}\n`))
  return {
    async attempt<T>(request: PromiseLike<T>): Promise<T> {
      tried++
      return request
    },
  }
}

/** A refusal: a 4xx with a Mastodon-style `{"error": "…"}` body. */
export function expectRefused(res: Response, status?: number) {
  if (status === undefined) {
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
  } else expect(res.status).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  expect(typeof res.body.error).toBe('string')
}
