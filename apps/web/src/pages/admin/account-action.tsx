import { useState } from 'preact/hooks'
import type { Api } from '../../api'
import { Check, Form, Select, TextField } from '../../ui'
import { ACCOUNT_ACTIONS } from './common'

/**
 * An action on an account with the warning sent to its owner (POST /api/v1/admin/accounts/:id/action). From a
 * report, the action names it (`report_id`), which resolves it in the same call.
 */
export function AccountActionForm(props: {
  api: Api
  accountId: string
  acct: string
  reportId?: string
  onDone: () => void
}) {
  const [type, setType] = useState('none')
  const [text, setText] = useState('')
  const [notify, setNotify] = useState(true)
  const run = () =>
    props.api.send('POST', `/api/v1/admin/accounts/${props.accountId}/action`, {
      type,
      text,
      send_email_notification: notify,
      ...(props.reportId ? { report_id: props.reportId } : {}),
    })
  return (
    <Form
      run={run}
      onDone={props.onDone}
      submit={props.reportId ? 'Take action and resolve' : 'Take action'}
      busy={props.reportId ? 'Taking the action and resolving…' : 'Taking the action…'}
      done="Done."
      label={`Action on @${props.acct}`}
    >
      <Select label="Action to take" value={type} onChange={setType} options={ACCOUNT_ACTIONS} />
      <TextField
        label="Warning text sent to the user"
        hint="Said in the e-mail the user gets, and kept with the account's warnings."
        value={text}
        onInput={setText}
        multiline
      />
      <Check label="Notify the user by e-mail" checked={notify} onChange={setNotify} />
    </Form>
  )
}
