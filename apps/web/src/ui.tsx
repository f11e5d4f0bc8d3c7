import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import type { Paged } from './api'

/**
 * The pieces every page is made of (docs/architecture.md, "The web app"): loading a resource, a list that pages by
 * the API's Link headers, a button whose action shows its progress, messages read out by screen readers, fields
 * with their labels. Pages use these rather than their own, so that they look and behave alike.
 */

export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true })
  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => setState({ data, loading: false }),
      (e: Error) => setState({ error: e.message, loading: false }),
    )
  }, deps)
  useEffect(reload, [reload])
  return { ...state, reload }
}

export const Loading = ({ what = 'Loading…' }: { what?: string }) => (
  <p class="muted" role="status" aria-live="polite">
    {what}
  </p>
)

export const ErrorText = ({ error }: { error?: string }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null

export const Notice = ({ text }: { text?: string }) => (
  <p class="notice" role="status" aria-live="polite">
    {text ?? ''}
  </p>
)

/**
 * A button running an async action: disabled and saying so while it runs (a long action shows its progress), its
 * error shown beside it. `onDone` gets the result.
 */
export function Action<T>(props: {
  run: () => Promise<T>
  onDone?: (result: T) => void
  children: ComponentChildren
  busy?: string
  kind?: 'primary' | 'secondary' | 'danger'
  type?: 'button' | 'submit'
  label?: string
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const click = async (e: Event) => {
    e.preventDefault()
    if (busy) return
    setBusy(true)
    setError(undefined)
    try {
      const result = await props.run()
      setBusy(false)
      props.onDone?.(result)
    } catch (err) {
      setBusy(false)
      setError((err as Error).message)
    }
  }
  return (
    <span class="action">
      <button
        type={props.type ?? 'button'}
        class={props.kind ?? 'primary'}
        onClick={click}
        disabled={busy}
        aria-busy={busy}
        aria-label={props.label}
      >
        {busy ? (props.busy ?? 'Working…') : props.children}
      </button>
      {busy ? <progress class="spinner" aria-label="In progress" /> : null}
      <ErrorText error={error} />
    </span>
  )
}

/** A form whose submit runs an async action, with its progress and its result or error. */
export function Form<T>(props: {
  run: () => Promise<T>
  onDone?: (result: T) => void
  submit: string
  busy?: string
  done?: string
  children: ComponentChildren
  label?: string
}) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(undefined)
    setNotice(undefined)
    try {
      const result = await props.run()
      setNotice(props.done)
      props.onDone?.(result)
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form onSubmit={submit} aria-label={props.label} aria-busy={busy}>
      {props.children}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? (props.busy ?? 'Saving…') : props.submit}
        </button>
        {busy ? <progress class="spinner" aria-label="In progress" /> : null}
      </div>
      <ErrorText error={error} />
      <Notice text={notice} />
    </form>
  )
}

let ids = 0
const useId = () => useState(() => `f${++ids}`)[0]

interface InputProps {
  type?: 'text' | 'email' | 'password' | 'date' | 'datetime-local'
  autoComplete?: string
  required?: boolean
  minLength?: number
  maxLength?: number
}

export function TextField(
  props: {
    label: string
    value: string
    onInput: (v: string) => void
    hint?: string
    multiline?: boolean
  } & InputProps,
) {
  const id = useId()
  const { label, value, onInput, hint, multiline, ...rest } = props
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {multiline ? (
        <textarea
          id={id}
          value={value}
          rows={4}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
        />
      ) : (
        <input
          id={id}
          type="text"
          {...rest}
          value={value}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onInput={(e) => onInput((e.target as HTMLInputElement).value)}
        />
      )}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  )
}

export function Check(props: {
  label: string
  checked: boolean
  onChange: (v: boolean) => void
  hint?: string
}) {
  const id = useId()
  return (
    <div class="check">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  )
}

export function Select(props: {
  label: string
  value: string
  onChange: (v: string) => void
  options: [value: string, label: string][]
}) {
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {props.options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  )
}

/**
 * A list read page by page as the API gives it: the first page from `first`, the next ones from the `next` address
 * of its Link header, and back through the pages read before (rather than by `prev`, which Mastodon leaves out of
 * an offset list's second page). `version` reloads the current page (after a change). The buttons say Newer and
 * Older (lists newest first), or `turns` (a ranking such as the trends: Previous and Next). A `table` is drawn as
 * one, a row per item.
 */
export function PagedList<T>(props: {
  first: () => Promise<Paged<T>>
  more: (url: string) => Promise<Paged<T>>
  item: (item: T, reload: () => void) => ComponentChildren
  empty: string
  label: string
  version?: unknown
  turns?: [prev: string, next: string]
  /** Shown as a table with these column headings (`item` then gives a row) rather than as a list. */
  table?: { caption: string; columns: string[] }
}) {
  const [prevText, nextText] = props.turns ?? ['Newer', 'Older']
  /** The addresses of the pages read, the first one's being undefined; the last is the one shown. */
  const [trail, setTrail] = useState<(string | undefined)[]>([undefined])
  const url = trail[trail.length - 1]
  const [tick, setTick] = useState(0)
  const reload = () => setTick((t) => t + 1)
  const page = useLoad(() => (url ? props.more(url) : props.first()), [url, tick, props.version])
  return (
    <section aria-label={props.label} class="list">
      {page.loading && !page.data ? <Loading /> : null}
      <ErrorText error={page.error} />
      {page.data && page.data.items.length === 0 ? <p class="muted">{props.empty}</p> : null}
      {page.data && page.data.items.length > 0 && !props.table ? (
        <ul class="items">{page.data.items.map((item) => props.item(item, reload))}</ul>
      ) : null}
      {page.data && page.data.items.length > 0 && props.table ? (
        <div class="table-wrap">
          <table>
            <caption>{props.table.caption}</caption>
            <thead>
              <tr>
                {props.table.columns.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{page.data.items.map((item) => props.item(item, reload))}</tbody>
          </table>
        </div>
      ) : null}
      {page.data && (trail.length > 1 || page.data.next) ? (
        <nav class="pager" aria-label={`Pages of ${props.label.toLowerCase()}`}>
          <button
            type="button"
            class="secondary"
            disabled={trail.length < 2}
            onClick={() => setTrail((t) => t.slice(0, -1))}
          >
            {prevText}
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!page.data.next}
            onClick={() => setTrail((t) => [...t, page.data!.next])}
          >
            {nextText}
          </button>
        </nav>
      ) : null}
    </section>
  )
}

export const When = ({ at }: { at?: string | null }) =>
  at ? <time dateTime={at}>{new Date(at).toLocaleString()}</time> : <span>—</span>
