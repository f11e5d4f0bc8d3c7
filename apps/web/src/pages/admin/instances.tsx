import { PagedList, When } from '../../ui'
import { pages } from '../common'
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
 * Known servers and their delivery health (Roost's GET /api/v1/admin/instances, docs/federation.md), by domain,
 * paged by the Link header (offset pages).
 */
export const instances: Page = {
  title: 'Servers',
  area: 'admin',
  scopes: ['admin:read'],
  permission: PERMISSIONS.manage_federation,
  menu: 'Servers',
  Component({ api }) {
    return (
      <PagedList<Instance>
        {...pages<Instance>(api, '/api/v1/admin/instances')}
        label="Known servers"
        empty="No other server is known yet."
        turns={['Previous', 'Next']}
        table={{
          caption: 'Servers this one knows, with their delivery health',
          columns: ['Domain', 'Known accounts', 'Days deliveries failed', 'Unavailable since', 'Block'],
        }}
        item={(i) => (
          <tr key={i.domain}>
            <th scope="row">{i.domain}</th>
            <td>{i.accounts_count}</td>
            <td>{i.delivery_failures}</td>
            <td>
              <When at={i.unavailable_since} />
            </td>
            <td>{i.domain_block ?? '—'}</td>
          </tr>
        )}
      />
    )
  },
}
