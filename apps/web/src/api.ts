/**
 * The app's one way to the server: Roost's public API, with a bearer token, as any client (docs/architecture.md,
 * "The web app"). Errors are Mastodon's `{"error": …}`, thrown as ApiError with the text to show; lists come with
 * the `next`/`prev` links of their `Link` header.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export interface Paged<T> {
  items: T[]
  next?: string
  prev?: string
}

/** The `rel="next"` and `rel="prev"` addresses of a `Link` header. */
export function parseLinks(header: string | null): { next?: string; prev?: string } {
  const links: { next?: string; prev?: string } = {}
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?(next|prev)"?/.exec(part)
    if (m) links[m[2] as 'next' | 'prev'] = m[1]
  }
  return links
}

type Body = Record<string, unknown> | FormData | undefined

export interface Api {
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>
  page<T>(pathOrUrl: string, query?: Record<string, string | undefined>): Promise<Paged<T>>
  send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: Body): Promise<T>
  /** send() for a form with files, telling `onProgress` how much of it went up (0 to 1) as it goes. */
  upload<T>(
    method: 'POST' | 'PATCH',
    path: string,
    form: FormData,
    onProgress: (sent: number) => void,
  ): Promise<T>
}

/** An API client with this token (or none, for the public endpoints); `onUnauthorized` runs on a 401. */
export function createApi(token: string | undefined, onUnauthorized: () => void = () => {}): Api {
  const refusal = (status: number, error: { error?: unknown } | undefined) => {
    if (status === 401 && token) onUnauthorized()
    return new ApiError(
      status,
      typeof error?.error === 'string' ? error.error : `The server answered ${status}`,
    )
  }
  async function call(method: string, url: string, body?: Body) {
    const headers: Record<string, string> = {}
    if (token) headers.Authorization = `Bearer ${token}`
    let payload: BodyInit | undefined
    if (body instanceof FormData) payload = body
    else if (body) {
      headers['Content-Type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    // Always asked of the server: an admin reads what it just changed (the instance document is cacheable).
    const res = await fetch(url, { method, headers, body: payload, cache: 'no-cache' })
    if (!res.ok) throw refusal(res.status, await res.json().catch(() => undefined))
    return res
  }
  const withQuery = (path: string, query: Record<string, string | undefined> = {}) => {
    const url = new URL(path, location.origin)
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v)
    return url.toString()
  }
  return {
    async get(path, query) {
      return (await call('GET', withQuery(path, query))).json()
    },
    async page(pathOrUrl, query) {
      const res = await call('GET', withQuery(pathOrUrl, query))
      return { items: await res.json(), ...parseLinks(res.headers.get('Link')) }
    },
    async send(method, path, body) {
      const res = await call(method, withQuery(path), body)
      const text = await res.text()
      return text ? JSON.parse(text) : {}
    },
    // XMLHttpRequest, not fetch: only it reports how much of a request's body has been sent.
    upload(method, path, form, onProgress) {
      return new Promise((resolve, reject) => {
        const xhr = new XMLHttpRequest()
        xhr.open(method, withQuery(path))
        if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`)
        xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total)
        xhr.onload = () => {
          let body: unknown
          try {
            body = xhr.responseText ? JSON.parse(xhr.responseText) : {}
          } catch {
            body = undefined
          }
          if (xhr.status >= 200 && xhr.status < 300) resolve(body as never)
          else reject(refusal(xhr.status, body as { error?: unknown }))
        }
        xhr.onerror = () => reject(new ApiError(0, 'The server could not be reached'))
        xhr.send(form)
      })
    },
  }
}
