import type { Account } from '../common'
import { AccountLine } from '../common'

/** Mastodon's Admin::Account entity, the parts the admin pages show. */
export interface AdminAccount {
  id: string
  username: string
  domain: string | null
  email: string
  ip: string | null
  created_at: string
  role: { id: string; name: string } | null
  confirmed: boolean
  approved: boolean
  disabled: boolean
  silenced: boolean
  suspended: boolean
  sensitized: boolean
  invite_request: string | null
  account: Account
}

export const AdminAccountLine = ({ a }: { a: AdminAccount }) => (
  <span class="account-line">
    <a href={`/admin/accounts/${a.id}`}>
      <AccountLine account={a.account} />
    </a>{' '}
    <AccountState a={a} />
  </span>
)

export function AccountState({ a }: { a: AdminAccount }) {
  const states = [
    !a.approved && 'pending approval',
    a.suspended && 'suspended',
    a.silenced && 'limited',
    a.disabled && 'login disabled',
    a.sensitized && 'media sensitive',
  ].filter(Boolean)
  return states.length ? (
    <span class="badges">
      {states.map((s) => (
        <span class="badge" key={String(s)}>
          {s}
        </span>
      ))}
    </span>
  ) : null
}

/** The actions of POST /api/v1/admin/accounts/:id/action, in Mastodon's words. */
export const ACCOUNT_ACTIONS: [string, string][] = [
  ['none', 'Warn only'],
  ['sensitive', 'Mark media as sensitive'],
  ['silence', 'Limit (silence)'],
  ['disable', 'Disable login'],
  ['suspend', 'Suspend'],
]
