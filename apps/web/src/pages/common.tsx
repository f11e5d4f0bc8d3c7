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

/** A list endpoint paged by its Link header, for PagedList. */
export const pages = <T,>(api: Api, path: string, query?: Record<string, string | undefined>) => ({
  first: () => api.page<T>(path, query),
  more: (url: string) => api.page<T>(url),
})
