import { useState } from 'preact/hooks'
import { Action, Form, PagedList, Select, TextField, When } from '../../ui'
import { pages } from '../common'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'

interface IpBlock {
  id: string
  ip: string
  severity: string
  comment: string
  created_at: string
  expires_at: string | null
}

const SEVERITIES: [string, string][] = [
  ['sign_up_requires_approval', 'Sign-ups need approval'],
  ['sign_up_block', 'Block sign-ups'],
  ['no_access', 'Block all access'],
]

/** Address rules (Mastodon's /api/v1/admin/ip_blocks). */
export const ipBlocks: Page = {
  title: 'IP rules',
  area: 'admin',
  scopes: ['admin:read:ip_blocks', 'admin:write:ip_blocks'],
  permission: PERMISSIONS.manage_blocks,
  menu: 'IP rules',
  Component({ api }) {
    const [ip, setIp] = useState('')
    const [severity, setSeverity] = useState('sign_up_requires_approval')
    const [comment, setComment] = useState('')
    const [expires, setExpires] = useState('')
    const [version, setVersion] = useState(0)
    return (
      <>
        <details class="panel">
          <summary>Add a rule</summary>
          <Form
            run={() =>
              api.send('POST', '/api/v1/admin/ip_blocks', { ip, severity, comment, expires_in: expires })
            }
            onDone={() => {
              setIp('')
              setComment('')
              setVersion((v) => v + 1)
            }}
            submit="Add rule"
            done="Rule added."
            label="Add an IP rule"
          >
            <TextField label="Address or range (CIDR)" value={ip} onInput={setIp} required />
            <Select label="Rule" value={severity} onChange={setSeverity} options={SEVERITIES} />
            <TextField label="Comment" value={comment} onInput={setComment} />
            <Select
              label="Expires"
              value={expires}
              onChange={setExpires}
              options={[
                ['', 'Never'],
                ['86400', 'In a day'],
                ['2592000', 'In 30 days'],
                ['31536000', 'In a year'],
              ]}
            />
          </Form>
        </details>
        <PagedList<IpBlock>
          {...pages<IpBlock>(api, '/api/v1/admin/ip_blocks')}
          version={version}
          label="IP rules"
          empty="No IP rules."
          item={(b, reload) => (
            <li class="item row" key={b.id}>
              <span>
                <code>{b.ip}</code>{' '}
                <span class="badge">{SEVERITIES.find(([v]) => v === b.severity)?.[1] ?? b.severity}</span>{' '}
                <span class="muted">
                  {b.comment} · expires <When at={b.expires_at} />
                </span>
              </span>
              <Action
                kind="secondary"
                run={() => api.send('DELETE', `/api/v1/admin/ip_blocks/${b.id}`)}
                onDone={reload}
              >
                Remove rule {b.ip}
              </Action>
            </li>
          )}
        />
      </>
    )
  },
}
