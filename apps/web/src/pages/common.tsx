import type { Api } from '../api'

/** What several pages show the same way. */
export interface Account {
  id: string
  acct: string
  username?: string
  display_name: string
  avatar: string
  url: string
}

export const AccountLine = ({ account }: { account: Account }) => (
  <span class="account">
    <img src={account.avatar} alt="" width={32} height={32} />
    <span>
      <strong>{account.display_name || account.username || account.acct}</strong>{' '}
      <span class="muted">@{account.acct}</span>
    </span>
  </span>
)

/** How many items a list shows at once (the next ones are a click away, by the Link header). */
export const PAGE_SIZE = '20'

/** A list endpoint paged by its Link header, for PagedList: its first page, then the addresses the links give. */
export const pages = <T,>(api: Api, path: string, query?: Record<string, string | undefined>) => ({
  first: () => api.page<T>(path, { limit: PAGE_SIZE, ...query }),
  more: (url: string) => api.page<T>(url),
})

/** The account of a handle (`user` or `user@server`, an `@` before it or not) that this server knows. */
export const lookUp = (api: Api, handle: string) =>
  api.get<Account>('/api/v1/accounts/lookup', { acct: handle.trim().replace(/^@/, '') })
