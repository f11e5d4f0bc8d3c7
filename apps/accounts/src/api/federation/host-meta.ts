import type { Request, Response } from 'express'
import type { AccountsContext } from '../../context'

/**
 * GET /.well-known/host-meta (RFC 6415): an XRD whose one link tells clients and servers where WebFinger answers.
 * Phanpy and other clients ask for it at sign-in; Mastodon serves the same document.
 */
export function hostMeta(ctx: AccountsContext, _req: Request, res: Response) {
  const webfinger = `${ctx.config.PUBLIC_URL.replace(/\/+$/, '')}/.well-known/webfinger?resource={uri}`
  res
    .type('application/xrd+xml; charset=utf-8')
    .set('Cache-Control', 'max-age=259200, public')
    .send(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n' +
        `  <Link rel="lrdd" template="${escapeXml(webfinger)}"/>\n` +
        '</XRD>\n',
    )
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
