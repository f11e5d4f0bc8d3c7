/** The OAuth pages, and the look the /auth pages share (auth/pages.ts): plain server-rendered HTML, no scripts. */
export const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

export const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Roost</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f4f8;color:#222;display:flex;justify-content:center;padding:4rem 1rem}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0002;padding:2rem;max-width:26rem;width:100%}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.8rem 0 .3rem}input[type=email],input[type=text],input[type=password]{width:100%;padding:.6rem;box-sizing:border-box;border:1px solid #bbb;border-radius:6px}
button{margin-top:1.2rem;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#563acc;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#ddd;color:#222;margin-left:.5rem}.error{color:#b00020}code{font-size:1.2rem;word-break:break-all}ul{padding-left:1.2rem}
</style></head><body><main>${body}</main></body></html>`

export const hidden = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v!)}">`)
    .join('')

export function signInPage(o: {
  appName: string
  fields: Record<string, string | undefined>
  csrf: string
  error?: string
}) {
  return layout(
    'Sign in',
    `<h1>Sign in to continue to ${escape(o.appName)}</h1>
${o.error ? `<p class="error" role="alert">${escape(o.error)}</p>` : ''}
<form method="post" action="/oauth/authorize">
${hidden({ ...o.fields, action: 'sign_in', csrf_token: o.csrf })}
<label for="email">E-mail address or username</label><input id="email" name="email" type="text" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  )
}

export function consentPage(o: {
  appName: string
  username: string
  scopes: string[]
  fields: Record<string, string | undefined>
  csrf: string
}) {
  return layout(
    'Authorize',
    `<h1>Authorize ${escape(o.appName)}?</h1>
<p>Signed in as <strong>@${escape(o.username)}</strong>. The app asks for these permissions:</p>
<ul>${o.scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize">
${hidden({ ...o.fields, csrf_token: o.csrf })}
<button type="submit" name="action" value="approve">Authorize</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
</form>`,
  )
}

export function codePage(code: string) {
  return layout(
    'Authorization code',
    `<h1>Authorization code</h1><p>Copy this code and paste it into the application.</p><p><code id="code">${escape(code)}</code></p>`,
  )
}

export function errorPage(message: string) {
  return layout(
    'Error',
    `<h1>Something is wrong with this request</h1><p class="error" role="alert">${escape(message)}</p>`,
  )
}

/**
 * The second step of signing in (docs/security.md, "Two-factor sign-in"): a code from the authenticator app or a
 * recovery code, or a security key when the user has one (a button whose script, allowed by its nonce, asks the
 * browser for the key and sends its answer in the form).
 */
export function twoFactorPage(o: {
  action: string
  fields: Record<string, string | undefined>
  csrf: string
  error?: string
  keyOptions?: unknown
  nonce?: string
}) {
  const key =
    o.keyOptions && o.nonce
      ? `<form method="post" action="${escape(o.action)}" id="key-form">
${hidden({ ...o.fields, action: 'two_factor', csrf_token: o.csrf })}<input type="hidden" name="credential" value="">
<p>Or use your security key:</p>
<button type="button" id="webauthn" data-mode="get" data-options="${escape(JSON.stringify(o.keyOptions))}">Use security key</button>
<p class="error" id="webauthn-error" role="alert"></p>
</form>${webauthnScript(o.nonce)}`
      : ''
  return layout(
    'Two-factor authentication',
    `<h1>Two-factor authentication</h1>
${o.error ? `<p class="error" role="alert">${escape(o.error)}</p>` : ''}
<form method="post" action="${escape(o.action)}">
${hidden({ ...o.fields, action: 'two_factor', csrf_token: o.csrf })}
<label for="code">Enter the code from your authenticator app, or a recovery code</label><input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>${key}`,
  )
}

/**
 * The only script of the pages: asks the browser for a security key (create or get, per the button's
 * `data-mode`) with the server's options, and sends the answer as JSON in the form's `credential` field.
 */
export function webauthnScript(nonce: string) {
  return `<script nonce="${escape(nonce)}">
(() => {
  const button = document.getElementById('webauthn')
  const problem = document.getElementById('webauthn-error')
  button.addEventListener('click', async () => {
    try {
      const options = JSON.parse(button.dataset.options)
      const credential = button.dataset.mode === 'create'
        ? await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) })
        : await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) })
      const form = button.closest('form')
      form.elements.credential.value = JSON.stringify(credential.toJSON())
      form.submit()
    } catch (err) {
      problem.textContent = 'The security key did not answer: ' + err.message
    }
  })
})()
</script>`
}
