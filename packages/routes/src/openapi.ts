import { z } from 'zod'
import { ALL_SCOPES } from '@roost/auth'
import { ROUTES } from './table'
import type { Route } from './table'

type JsonSchema = Record<string, unknown>

/** `/api/v1/accounts/:id` → `/api/v1/accounts/{id}` */
export const openApiPath = (path: string) => path.replace(/[:*](\w+)/g, '{$1}')

const jsonSchemaOf = (schema: z.ZodType): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  return rest
}

const errorResponse = { $ref: '#/components/responses/Error' }

/**
 * Query parameters (GET, DELETE) or request body (the others) from the route's params schema: the same object
 * `readParams` validates with. Lists are sent Rails' way, `name[]=a&name[]=b`; nested objects with brackets.
 */
function parametersOf(route: Route) {
  const path = [...route.path.matchAll(/[:*](\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }))
  if (!route.params) return { parameters: path }
  const schema = jsonSchemaOf(route.params) as {
    properties?: Record<string, JsonSchema>
    required?: string[]
  }
  if (route.method === 'GET' || route.method === 'DELETE') {
    const query = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name: property.type === 'array' ? `${name}[]` : name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      ...(property.type === 'object' ? { style: 'deepObject', explode: true } : {}),
      schema: property,
    }))
    return { parameters: [...path, ...query] }
  }
  const content: Record<string, { schema: JsonSchema }> = {
    'application/json': { schema },
    'application/x-www-form-urlencoded': { schema },
    'multipart/form-data': { schema },
  }
  return { parameters: path, requestBody: { required: !!schema.required?.length, content } }
}

/** The route's accepted scopes as OpenAPI security requirements (`optional`: anonymous allowed too). */
function securityOf(route: Route) {
  if (route.access === 'none') return []
  const oauth = { OAuth2: [...route.scopes] }
  return route.access === 'optional' ? [{}, oauth] : [oauth]
}

const operationId = (route: Route) =>
  `${route.method.toLowerCase()}${route.path
    .split(/[/._-]/)
    .filter(Boolean)
    .map((part) => (/^[:*]/.test(part) ? `By${part[1]!.toUpperCase()}${part.slice(2)}` : part))
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}`

/**
 * The OpenAPI 3.1 document of the public API, built from the route table (method, path, scopes → security)
 * and each route's params schema. The gateway serves it at /api/openapi.json.
 */
export function openApiDocument(publicUrl: string) {
  const base = publicUrl.replace(/\/$/, '')
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of ROUTES) {
    const operations = (paths[openApiPath(route.path)] ??= {})
    operations[route.method.toLowerCase()] = {
      operationId: operationId(route),
      tags: [route.upstream],
      security: securityOf(route),
      // Admin routes: the Mastodon permission bit the caller's role must hold (docs/moderation.md).
      ...(route.permission
        ? {
            'x-permission': route.permission,
            description: `Needs a role with the \`${route.permission}\` permission (403 otherwise).`,
          }
        : {}),
      ...parametersOf(route),
      responses: { '200': { description: 'Success' }, '4XX': errorResponse, '5XX': errorResponse },
    }
  }
  const scopes = Object.fromEntries(ALL_SCOPES.map((scope) => [scope, scope]))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Roost',
      version: '0.1.0 (the Mastodon 4.5 API)',
      description:
        'The Mastodon client API as Roost serves it. Parameters may be sent as a query string, JSON, ' +
        'a urlencoded form with Rails brackets or a multipart form.',
    },
    servers: [{ url: base }],
    paths,
    components: {
      securitySchemes: {
        OAuth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/oauth/authorize`,
              tokenUrl: `${base}/oauth/token`,
              scopes,
            },
            clientCredentials: { tokenUrl: `${base}/oauth/token`, scopes },
          },
        },
      },
      responses: {
        Error: {
          description: 'Mastodon-style error (OAuth endpoints add error_description)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { error: { type: 'string' }, error_description: { type: 'string' } },
                required: ['error'],
              },
            },
          },
        },
      },
    },
  }
}
