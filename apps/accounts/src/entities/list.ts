/** Mastodon's List entity (REST::ListSerializer). */
export interface ListRow {
  id: string
  account_id: string
  title: string
  replies_policy: 'list' | 'followed' | 'none'
  exclusive: boolean
  created_at: Date
  updated_at: Date
}

export const renderList = (l: ListRow) => ({
  id: l.id,
  title: l.title,
  replies_policy: l.replies_policy,
  exclusive: l.exclusive,
})
