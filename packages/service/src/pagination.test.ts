import type { Paging } from './pagination'
import { keptFromQuery, readPage, setPageLinks } from './pagination'

const BASE = 'https://roost.example/'

/** The Link header setPageLinks writes for `rows` on a request to /api/v1/things, or undefined. */
function linkOf<T>(rows: T[], paging: Paging<T>): string | undefined {
  const headers: Record<string, string> = {}
  setPageLinks(
    { path: '/api/v1/things' },
    { setHeader: (name, value) => (headers[name] = value) },
    BASE,
    rows,
    paging,
  )
  return headers.Link
}

const rows = (...ids: string[]) => ids.map((id) => ({ id, page_id: `p${id}` }))
const byId = (row: { id: string }) => row.id

describe('setPageLinks', () => {
  it('links a full page next by max_id of the last row and prev by min_id of the first, absolute', () => {
    expect(
      linkOf(rows('30', '20', '10'), { limit: 3, cursor: byId, next: 'when-full', prev: 'min_id' }),
    ).toBe(
      '<https://roost.example/api/v1/things?max_id=10>; rel="next", ' +
        '<https://roost.example/api/v1/things?min_id=30>; rel="prev"',
    )
  })

  it('when-full: a short page has prev only; when-not-empty: next too', () => {
    const short = rows('30', '20')
    expect(linkOf(short, { limit: 3, cursor: byId, next: 'when-full', prev: 'min_id' })).toBe(
      '<https://roost.example/api/v1/things?min_id=30>; rel="prev"',
    )
    expect(linkOf(short, { limit: 3, cursor: byId, next: 'when-not-empty', prev: 'min_id' })).toBe(
      '<https://roost.example/api/v1/things?max_id=20>; rel="next", ' +
        '<https://roost.example/api/v1/things?min_id=30>; rel="prev"',
    )
  })

  it('links prev by since_id where the endpoint says so, in the cursor column', () => {
    const page = rows('30', '20')
    expect(linkOf(page, { limit: 2, cursor: (r) => r.page_id, next: 'when-full', prev: 'since_id' })).toBe(
      '<https://roost.example/api/v1/things?max_id=p20>; rel="next", ' +
        '<https://roost.example/api/v1/things?since_id=p30>; rel="prev"',
    )
  })

  it('writes no Link for an empty page, whatever the rule', () => {
    for (const next of ['when-full', 'when-not-empty'] as const)
      for (const prev of ['min_id', 'since_id'] as const)
        expect(linkOf([], { limit: 0, cursor: byId, next, prev, kept: { limit: '0' } })).toBeUndefined()
  })

  it('keeps the given parameters, keys sorted, lists as key[], undefined left out; the cursor wins', () => {
    const kept = {
      types: ['mention', 'favourite'],
      limit: '2',
      account_id: undefined,
      max_id: '99',
      local: 'true',
    }
    expect(
      linkOf(rows('30', '20'), { limit: 2, cursor: byId, next: 'when-full', prev: 'min_id', kept }),
    ).toBe(
      '<https://roost.example/api/v1/things?limit=2&local=true&max_id=20&types%5B%5D=mention&types%5B%5D=favourite>; rel="next", ' +
        '<https://roost.example/api/v1/things?limit=2&local=true&max_id=99&min_id=30&types%5B%5D=mention&types%5B%5D=favourite>; rel="prev"',
    )
  })

  it('takes a numeric cursor, and a path other than the request’s', () => {
    expect(
      linkOf([{ id: 7 }], {
        limit: 1,
        cursor: (r) => r.id,
        next: 'when-full',
        prev: 'min_id',
        path: '/api/v1/other',
      }),
    ).toBe(
      '<https://roost.example/api/v1/other?max_id=7>; rel="next", <https://roost.example/api/v1/other?min_id=7>; rel="prev"',
    )
  })

  it('pages by offset: next when full, prev while the offset is past the first page, even on an empty page', () => {
    const kept = { limit: '2' }
    expect(linkOf(rows('a', 'b'), { limit: 2, offset: 0, next: 'when-full', kept })).toBe(
      '<https://roost.example/api/v1/things?limit=2&offset=2>; rel="next"',
    )
    expect(linkOf(rows('a', 'b'), { limit: 2, offset: 2, next: 'when-full', kept })).toBe(
      '<https://roost.example/api/v1/things?limit=2&offset=4>; rel="next"',
    )
    expect(linkOf(rows('a'), { limit: 2, offset: 6, next: 'when-full', kept })).toBe(
      '<https://roost.example/api/v1/things?limit=2&offset=4>; rel="prev"',
    )
    expect(linkOf([], { limit: 2, offset: 6, next: 'when-full', kept })).toBe(
      '<https://roost.example/api/v1/things?limit=2&offset=4>; rel="prev"',
    )
    expect(linkOf([], { limit: 2, offset: 0, next: 'when-full', kept })).toBeUndefined()
  })
})

describe('keptFromQuery', () => {
  it('keeps the named parameters sent as text, verbatim, and nothing else', () => {
    expect(
      keptFromQuery({ local: '1', only_media: '', remote: ['true'], limit: '5', max_id: '9' }, [
        'local',
        'remote',
        'only_media',
        'limit',
      ]),
    ).toEqual({ local: '1', only_media: '', limit: '5' })
  })
})

describe('readPage', () => {
  it('reads limit as Mastodon’s limit_param and ignores cursors that are not ids', () => {
    expect(readPage({}, 20)).toEqual({ limit: 20, maxId: undefined, sinceId: undefined, minId: undefined })
    expect(
      readPage({ limit: '-5', max_id: '12', since_id: 'abc', min_id: '99999999999999999999' }, 20),
    ).toEqual({
      limit: 5,
      maxId: '12',
      sinceId: undefined,
      minId: undefined,
    })
    expect(readPage({ limit: '500' }, 20).limit).toBe(40)
    expect(readPage({ limit: 'x' }, 20).limit).toBe(0)
  })
})
