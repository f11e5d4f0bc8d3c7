import type { ListRow } from '../db/rows'
export const renderList = (l: ListRow) => ({
  id: l.id,
  title: l.title,
  replies_policy: l.replies_policy,
  exclusive: l.exclusive,
})
