import { useState } from 'preact/hooks'
import { Action, Check, ErrorText, Form, Loading, TextField, useLoad } from '../../ui'
import type { Page } from '../types'
import { PERMISSIONS } from '../types'
import type { Permission } from '../types'

/** A role as GET /api/v1/admin/roles gives it (Mastodon's Role entity, with its position and bit names). */
export interface Role {
  id: string
  name: string
  color: string
  position: number
  permissions: string
  permissions_as_keys: Permission[]
  highlighted: boolean
}

/** What each permission bit lets a role do, in Mastodon's words. */
const WHAT: Record<Permission, string> = {
  administrator: 'Administrator (every permission)',
  view_devops: 'DevOps (the job queues)',
  view_audit_log: 'View the audit log',
  view_dashboard: 'View the dashboard',
  manage_reports: 'Manage reports',
  manage_federation: 'Manage federation',
  manage_settings: 'Manage server settings',
  manage_blocks: 'Manage e-mail and IP blocks',
  manage_taxonomies: 'Manage hashtags and trends',
  manage_appeals: 'Manage appeals',
  manage_users: 'Manage users',
  manage_invites: 'Manage invites',
  manage_rules: 'Manage rules',
  manage_announcements: 'Manage announcements',
  manage_custom_emojis: 'Manage custom emojis',
  manage_webhooks: 'Manage webhooks',
  invite_users: 'Invite users',
  manage_roles: 'Manage roles',
  manage_user_access: 'Manage user access (two-factor, e-mail)',
  delete_user_data: 'Delete user data',
}

/** Creating or editing a role: its name, colour, position, badge, and one box per permission bit. */
function RoleForm(props: {
  role?: Role
  everyone?: boolean
  run: (body: object) => Promise<unknown>
  onDone: () => void
}) {
  const r = props.role
  const [name, setName] = useState(r?.name ?? '')
  const [color, setColor] = useState(r?.color ?? '')
  const [position, setPosition] = useState(String(r?.position ?? 0))
  const [highlighted, setHighlighted] = useState(r?.highlighted ?? false)
  const [bits, setBits] = useState(Number(r?.permissions ?? 0))
  const label = r ? `Edit the role ${r.name || 'everyone'}` : 'Create a role'
  return (
    <Form
      run={() =>
        props.run(
          props.everyone
            ? { permissions: String(bits) }
            : {
                name,
                color,
                ...(/^-?\d+$/.test(position.trim()) ? { position: Number(position) } : {}),
                highlighted,
                permissions: String(bits),
              },
        )
      }
      onDone={props.onDone}
      submit={r ? 'Save role' : 'Create role'}
      done={r ? 'Role saved.' : 'Role created.'}
      label={label}
    >
      {props.everyone ? null : (
        <>
          <TextField label="Name" value={name} onInput={setName} required />
          <TextField label="Colour" hint="#rgb or #rrggbb, or blank" value={color} onInput={setColor} />
          <TextField
            label="Position"
            hint="A role acts only on users whose role is lower."
            value={position}
            onInput={setPosition}
          />
          <Check
            label="Show the role as a badge on profiles"
            checked={highlighted}
            onChange={setHighlighted}
          />
        </>
      )}
      <fieldset>
        <legend>Permissions</legend>
        {(Object.keys(WHAT) as Permission[]).map((p) => (
          <Check
            key={p}
            label={WHAT[p]}
            checked={(bits & PERMISSIONS[p]) !== 0}
            onChange={(on) => setBits((b) => (on ? b | PERMISSIONS[p] : b & ~PERMISSIONS[p]))}
          />
        ))}
      </fieldset>
    </Form>
  )
}

/** Roles (Roost's /api/v1/admin/roles, Mastodon's UserRole): the list by position, creating, editing, deleting. */
export const roles: Page = {
  title: 'Roles',
  area: 'admin',
  scopes: ['admin:read', 'admin:write'],
  permission: PERMISSIONS.manage_roles,
  menu: 'Roles',
  Component({ api }) {
    const list = useLoad(() => api.get<Role[]>('/api/v1/admin/roles'))
    const [created, setCreated] = useState(0)
    return (
      <>
        <details class="panel" key={created}>
          <summary>Create a role</summary>
          <RoleForm
            run={(body) => api.send('POST', '/api/v1/admin/roles', body as Record<string, unknown>)}
            onDone={() => {
              setCreated((c) => c + 1)
              list.reload()
            }}
          />
        </details>
        {list.loading && !list.data ? <Loading /> : null}
        <ErrorText error={list.error} />
        <ul class="items" aria-label="Roles">
          {(list.data ?? []).map((r) => {
            const everyone = r.id === '-99'
            return (
              <li class="item" key={`${r.id} ${r.permissions} ${r.name}`}>
                <p>
                  <strong>{everyone ? 'Everyone (every user)' : r.name}</strong>{' '}
                  <span class="muted">position {r.position}</span>
                  {r.highlighted ? <span class="badge">badge</span> : null}
                </p>
                <p class="muted">
                  {r.permissions_as_keys.length
                    ? r.permissions_as_keys.map((p) => WHAT[p] ?? p).join(' · ')
                    : 'No permissions'}
                </p>
                <details>
                  <summary>Edit {everyone ? 'everyone' : r.name}</summary>
                  <RoleForm
                    role={r}
                    everyone={everyone}
                    run={(body) =>
                      api.send('PUT', `/api/v1/admin/roles/${r.id}`, body as Record<string, unknown>)
                    }
                    onDone={list.reload}
                  />
                  {everyone ? null : (
                    <Action
                      kind="danger"
                      run={() => api.send('DELETE', `/api/v1/admin/roles/${r.id}`)}
                      onDone={list.reload}
                    >
                      Delete the role {r.name}
                    </Action>
                  )}
                </details>
              </li>
            )
          })}
        </ul>
      </>
    )
  },
}
