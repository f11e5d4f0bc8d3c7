import { ErrorText, Loading, useLoad, When } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface Instance {
  domain: string
  accounts_count: number
  delivery_failures: number
  unavailable_since: string | null
  domain_block: string | null
}

/**
 * Known servers and their delivery health (Roost's GET /api/v1/admin/instances, docs/federation.md): one answer of
 * up to 1000 servers, not paged by the API yet.
 */
export const instances: Page = {
  title: 'Servers',
  area: 'admin',
  scopes: ['admin:read'],
  permission: PERMISSIONS.manage_federation,
  menu: 'Servers',
  Component({ api }) {
    const list = useLoad(() => api.get<Instance[]>('/api/v1/admin/instances'))
    if (list.loading && !list.data) return <Loading />
    if (!list.data) return <ErrorText error={list.error} />
    if (!list.data.length) return <p class="muted">No other server is known yet.</p>
    return (
      <div class="table-wrap">
        <table>
          <caption>Servers this one knows, with their delivery health</caption>
          <thead>
            <tr>
              <th scope="col">Domain</th>
              <th scope="col">Known accounts</th>
              <th scope="col">Days deliveries failed</th>
              <th scope="col">Unavailable since</th>
              <th scope="col">Block</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((i) => (
              <tr key={i.domain}>
                <th scope="row">{i.domain}</th>
                <td>{i.accounts_count}</td>
                <td>{i.delivery_failures}</td>
                <td>
                  <When at={i.unavailable_since} />
                </td>
                <td>{i.domain_block ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )
  },
}
