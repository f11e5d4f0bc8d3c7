import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { WEB_ASSETS, WEB_ASSETS_PATH, WEB_PAGES } from '@roost/routes'
import { HttpError, notFound } from '@roost/service'
import type { Handler } from './route-index'

/**
 * The web app (apps/web; docs/architecture.md, "The web app"): every page of WEB_PAGES is the same HTML page, which
 * loads the app's script and style sheet from WEB_ASSETS_PATH; the app then reads the path and talks to the API.
 * The files are apps/web/dist, built by `npm run build` (and by `npm start` and the test set-up); from the sources
 * (apps/gateway/src) and from the bundle (apps/gateway/dist) alike it is ../../web/dist.
 */
export const WEB_DIR = path.resolve(__dirname, '../../web/dist')

/**
 * No inline script or style anywhere: the app's own files, images from here, from data:/blob: (a chosen avatar's
 * preview) and from https (remote avatars), API calls to this origin only; never framed.
 */
export const WEB_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https:; " +
  "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Roost</title><link rel="stylesheet" href="${WEB_ASSETS_PATH}/app.css">
<script type="module" src="${WEB_ASSETS_PATH}/app.js"></script></head>
<body><div id="app"><main><p>Loading…</p><noscript>These pages need JavaScript.</noscript></main></div></body></html>
`

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

const notBuilt = () => new HttpError(503, 'The web app is not built: run npm run build')

export function webHandlers(dir = WEB_DIR): Record<string, Handler> {
  const page: Handler = (_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(PAGE),
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': WEB_CSP,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
    })
    res.end(PAGE)
  }
  const asset: Handler = async (req, res) => {
    // Not decoded: the names are plain, and anything else (escapes included) is not one of them.
    const name = (req.url ?? '').split('?')[0]!.slice(WEB_ASSETS_PATH.length + 1)
    if (!(WEB_ASSETS as readonly string[]).includes(name)) throw notFound()
    const body = await readFile(path.join(dir, name)).catch(() => {
      throw notBuilt()
    })
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(name)]!,
      'Content-Length': body.length,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    })
    res.end(body)
  }
  return {
    ...Object.fromEntries(WEB_PAGES.map((p) => [p, page])),
    [`${WEB_ASSETS_PATH}/:file`]: asset,
  }
}
