import { useState } from 'preact/hooks'
import { Action, Check, Form, PagedList, Select, TextField } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface DomainBlock {
  id: string
  domain: string
  severity: string
  reject_media: boolean
  reject_reports: boolean
  public_comment: string | null
  private_comment: string | null
}

/** Blocked servers (Mastodon's /api/v1/admin/domain_blocks). */
export const domainBlocks: Page = {
  title: 'Blocked servers',
  area: 'admin',
  scopes: ['admin:read:domain_blocks', 'admin:write:domain_blocks'],
  permission: PERMISSIONS.manage_federation,
  menu: 'Blocked servers',
  Component({ api }) {
    const [domain, setDomain] = useState('')
    const [severity, setSeverity] = useState('silence')
    const [rejectMedia, setRejectMedia] = useState(false)
    const [rejectReports, setRejectReports] = useState(false)
    const [publicComment, setPublicComment] = useState('')
    const [privateComment, setPrivateComment] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <details class="panel">
          <summary>Block a server</summary>
          <Form
            run={() =>
              api.send('POST', '/api/v1/admin/domain_blocks', {
                domain,
                severity,
                reject_media: rejectMedia,
                reject_reports: rejectReports,
                public_comment: publicComment,
                private_comment: privateComment,
              })
            }
            onDone={() => {
              setDomain('')
              setVersion((v) => v + 1)
            }}
            submit="Block"
            done="Blocked."
            label="Block a server"
          >
            <TextField label="Domain" value={domain} onInput={setDomain} required />
            <Select
              label="Severity"
              value={severity}
              onChange={setSeverity}
              options={[
                ['silence', 'Limit'],
                ['suspend', 'Suspend'],
                ['noop', 'None (only the options below)'],
              ]}
            />
            <Check label="Reject media files" checked={rejectMedia} onChange={setRejectMedia} />
            <Check label="Reject reports" checked={rejectReports} onChange={setRejectReports} />
            <TextField label="Public comment" value={publicComment} onInput={setPublicComment} />
            <TextField label="Private comment" value={privateComment} onInput={setPrivateComment} />
          </Form>
        </details>
        <PagedList<DomainBlock>
          {...pages<DomainBlock>(api, '/api/v1/admin/domain_blocks')}
          version={version}
          label="Blocked servers"
          empty="No server is blocked."
          item={(b, reload) => (
            <li class="item row" key={b.id}>
              <span>
                <strong>{b.domain}</strong> <span class="badge">{b.severity}</span>
                {b.reject_media ? <span class="badge">no media</span> : null}
                {b.reject_reports ? <span class="badge">no reports</span> : null}
                {b.private_comment ? <span class="muted"> {b.private_comment}</span> : null}
              </span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/admin/domain_blocks/${b.id}`)}
                onDone={reload}
              >
                Unblock {b.domain}
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
