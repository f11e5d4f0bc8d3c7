import { useState } from 'preact/hooks'
import { appToken } from '../auth'
import { createApi } from '../api'
import { Check, ErrorText, Form, Loading, TextField, useLoad } from '../ui'
import type { Page } from './types'

interface Registrations {
  enabled: boolean
  approval_required: boolean
  reason_required: boolean
  message: string | null
  min_age: number | null
}
interface Rule {
  id: string
  text: string
  hint: string
}

/**
 * Signing up (Mastodon's POST /api/v1/accounts, with an app token as the API asks): the server's rules first, a
 * reason when accounts wait for approval, and what happens next.
 */
export const signUp: Page = {
  title: 'Create an account',
  area: 'public',
  Component({ api }) {
    const server = useLoad(async () => ({
      instance: await api.get<{ title: string; registrations: Registrations }>('/api/v2/instance'),
      rules: await api.get<Rule[]>('/api/v1/instance/rules'),
    }))
    const [username, setUsername] = useState('')
    const [email, setEmail] = useState('')
    const [password, setPassword] = useState('')
    const [agreement, setAgreement] = useState(false)
    const [reason, setReason] = useState('')
    const [birthday, setBirthday] = useState('')
    const [done, setDone] = useState<'ready' | 'waiting'>()
    if (server.loading) return <Loading />
    if (!server.data) return <ErrorText error={server.error} />
    const { instance, rules } = server.data
    const reg = instance.registrations
    if (done)
      return (
        <div role="status" class="done">
          {done === 'waiting' ? (
            <p>
              Thank you. Your application is waiting for a moderator of {instance.title}: you will get an
              e-mail once it is approved.
            </p>
          ) : (
            <p>
              Your account @{username} is created. If {instance.title} sent you an e-mail, follow its link
              first; then <a href="/settings/profile">sign in and fill in your profile</a>.
            </p>
          )}
        </div>
      )
    if (!reg.enabled)
      return <p>{reg.message ?? `${instance.title} is not taking new accounts at the moment.`}</p>
    const submit = async () => {
      if (!agreement) throw new Error('Please agree to the server rules first.')
      const token = await appToken('write:accounts')
      await createApi(token).send('POST', '/api/v1/accounts', {
        username,
        email,
        password,
        agreement: true,
        locale: navigator.language.split('-')[0] || 'en',
        ...(reg.approval_required ? { reason } : {}),
        ...(reg.min_age ? { date_of_birth: birthday } : {}),
      })
      setDone(reg.approval_required ? 'waiting' : 'ready')
    }
    return (
      <>
        <p>Join {instance.title}.</p>
        {reg.message ? <p class="notice">{reg.message}</p> : null}
        {rules.length ? (
          <section aria-labelledby="rules-heading">
            <h2 id="rules-heading">Server rules</h2>
            <ol class="rules">
              {rules.map((r) => (
                <li key={r.id}>
                  {r.text}
                  {r.hint ? <p class="hint">{r.hint}</p> : null}
                </li>
              ))}
            </ol>
          </section>
        ) : null}
        <Form run={submit} submit="Sign up" busy="Creating your account…" label="Sign-up">
          <TextField
            label="Username"
            value={username}
            onInput={setUsername}
            autoComplete="username"
            required
          />
          <TextField
            label="E-mail address"
            value={email}
            onInput={setEmail}
            type="email"
            autoComplete="email"
            required
          />
          <TextField
            label="Password"
            value={password}
            onInput={setPassword}
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
          />
          {reg.min_age ? (
            <TextField label="Date of birth" value={birthday} onInput={setBirthday} type="date" required />
          ) : null}
          {reg.approval_required ? (
            <TextField
              label="Why do you want to join?"
              hint={`Accounts on ${instance.title} are approved by a moderator: this helps them decide.`}
              value={reason}
              onInput={setReason}
              multiline
            />
          ) : null}
          <Check
            label={
              rules.length
                ? 'I have read and agree to the server rules'
                : 'I agree to the terms of this server'
            }
            checked={agreement}
            onChange={setAgreement}
          />
        </Form>
      </>
    )
  },
}
