import { z } from 'zod'
import { param } from '../params'

// The OAuth endpoints answer RFC 6749 errors (`invalid_request`, `invalid_scope`…), never Rails' 400/422, so
// every value is checked by the handler (apps/accounts/src/oauth).
const string = (description: string) => param.checkedByHandler({ type: 'string', description })

/** POST /api/v1/apps */
export const createAppParams = z.object({
  client_name: param.checkedByHandler({
    type: 'string',
    description: 'The application name (60 characters)',
  }),
  redirect_uris: param.checkedByHandler({
    description: 'Redirect URIs: one, several separated by white space, or a list',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  }),
  scopes: string('Space-separated scopes (default: read)'),
  website: string('The application homepage'),
})

const authorizationRequest = {
  response_type: string('Must be code'),
  client_id: string('The client id'),
  redirect_uri: string('One of the redirect URIs of the application'),
  scope: string('Space-separated scopes, a subset of the application’s (default: read)'),
  state: string('Opaque value returned to the client'),
  code_challenge: string('PKCE code challenge'),
  code_challenge_method: string('PKCE method: S256'),
}

/** GET /oauth/authorize (an HTML page) */
export const showAuthorizationParams = z.object(authorizationRequest)

/** POST /oauth/authorize (the page's forms) */
export const decideAuthorizationParams = z.object({
  ...authorizationRequest,
  action: string('sign_in, two_factor, approve or deny'),
  email: string('Sign-in e-mail address'),
  password: string('Sign-in password'),
  code: string('two_factor: a code of the authenticator app, or a recovery code'),
  credential: string('two_factor: a security key’s answer (WebAuthn, JSON)'),
  csrf_token: string('The form’s CSRF token'),
})

/** POST /oauth/token */
export const tokenParams = z.object({
  grant_type: string('authorization_code, client_credentials or (when enabled) password'),
  client_id: string('The client id (or HTTP Basic authentication)'),
  client_secret: string('The client secret (or HTTP Basic authentication)'),
  code: string('authorization_code: the code'),
  redirect_uri: string('authorization_code: the redirect URI of the authorization request'),
  code_verifier: string('authorization_code: the PKCE verifier'),
  scope: string('Space-separated scopes (default: read)'),
  username: string('password grant: the e-mail address'),
  password: string('password grant: the password'),
})

/** POST /oauth/revoke */
export const revokeParams = z.object({
  client_id: string('The client id (or HTTP Basic authentication)'),
  client_secret: string('The client secret (or HTTP Basic authentication)'),
  token: string('The access token to revoke'),
})
