import { useEffect, useState } from 'preact/hooks'
import { finishSignIn } from '../auth'
import { ErrorText, Loading } from '../ui'
import type { Page } from './types'

/** Where the server's authorization page sends the browser back with a code (or after signing out). */
export const callback: Page = {
  title: 'Signing in',
  area: 'public',
  Component() {
    const params = new URLSearchParams(location.search)
    const [error, setError] = useState<string>()
    useEffect(() => {
      if (params.has('signed_out')) return
      finishSignIn(params).then(
        (to) => location.replace(to),
        (e: Error) => setError(e.message),
      )
    }, [])
    if (params.has('signed_out'))
      return (
        <p>
          You have signed out of these pages. <a href="/settings/profile">Sign in again</a>
        </p>
      )
    return error ? (
      <>
        <ErrorText error={error} />
        <p>
          <a href="/settings/profile">Try again</a>
        </p>
      </>
    ) : (
      <Loading what="Finishing the sign-in…" />
    )
  },
}
