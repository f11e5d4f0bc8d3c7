import type { Api } from '../../api'
import { Action, PagedList, When } from '../../ui'
import type { Account } from '../common'
import { AccountLine, pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

/** Mastodon's Admin::Tag, the parts shown. */
interface AdminTag {
  id: string
  name: string
  url: string
  history: { day: string; uses: string; accounts: string }[]
  trendable: boolean
  requires_review: boolean
}

interface Status {
  id: string
  content: string
  url: string
  created_at: string
  account: Account
  reblogs_count: number
  favourites_count: number
}

/** A trend's standing: approved (trendable), rejected, or not reviewed yet. */
const standing = (t: { trendable: boolean; requires_review: boolean }) =>
  t.requires_review ? 'not reviewed' : t.trendable ? 'approved' : 'rejected'

function Verdict(props: { api: Api; path: string; what: string; onDone: () => void }) {
  return (
    <div class="buttons">
      <Action run={() => props.api.send('POST', `${props.path}/approve`)} onDone={props.onDone}>
        Approve {props.what}
      </Action>
      <Action kind="danger" run={() => props.api.send('POST', `${props.path}/reject`)} onDone={props.onDone}>
        Reject {props.what}
      </Action>
    </div>
  )
}

/**
 * Trends review (Mastodon's /api/v1/admin/trends/tags and statuses): what trends now, rejected items included, and
 * approving or rejecting each (a rejected one stays out of the public trends). Roost makes no preview cards, so
 * there are no links to review. Each list pages by its Link header (offset pages, as Mastodon's trends).
 */
export const trends: Page = {
  title: 'Trends',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_taxonomies,
  menu: 'Trends',
  Component({ api }) {
    return (
      <>
        <h2>Hashtags</h2>
        <PagedList<AdminTag>
          {...pages<AdminTag>(api, '/api/v1/admin/trends/tags')}
          label="Trending hashtags"
          empty="No hashtag is trending."
          turns={['Previous', 'Next']}
          item={(t, reload) => {
            const uses = t.history.reduce((n, h) => n + Number(h.uses), 0)
            const people = Number(t.history[0]?.accounts ?? 0)
            return (
              <li class="item" key={`${t.id} ${standing(t)}`}>
                <p>
                  <a href={t.url}>#{t.name}</a> <span class="badge">{standing(t)}</span>
                </p>
                <p class="muted">
                  {uses} uses this week · {people} people today
                </p>
                <Verdict
                  api={api}
                  path={`/api/v1/admin/trends/tags/${t.id}`}
                  what={`#${t.name}`}
                  onDone={reload}
                />
              </li>
            )
          }}
        />
        <h2>Posts</h2>
        <PagedList<Status>
          {...pages<Status>(api, '/api/v1/admin/trends/statuses')}
          label="Trending posts"
          empty="No post is trending."
          turns={['Previous', 'Next']}
          item={(s, reload) => (
            <li class="item" key={s.id}>
              <AccountLine account={s.account} />
              {/* The server's sanitised HTML of the post, shown as text: no markup from a post reaches the page. */}
              <p>{new DOMParser().parseFromString(s.content, 'text/html').body.textContent}</p>
              <p class="muted">
                <a href={s.url}>
                  <When at={s.created_at} />
                </a>{' '}
                · {s.reblogs_count} boosts · {s.favourites_count} favourites
              </p>
              <Verdict
                api={api}
                path={`/api/v1/admin/trends/statuses/${s.id}`}
                what={`the post by @${s.account.acct}`}
                onDone={reload}
              />
            </li>
          )}
        />
      </>
    )
  },
}
