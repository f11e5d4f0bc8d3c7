import express from 'express'
import type { RequestHandler } from 'express'
import { isInteger, parse } from 'lossless-json'

/**
 * Ids are snowflakes of about 1.2 × 10^17, beyond 2^53, and some clients send them as JSON numbers (Mastodon.py
 * turns every id into an int): JSON.parse would round them to the nearest double. This parses JSON as JSON.parse
 * does (the last of duplicate keys wins, `__proto__` is an ordinary key) except that an integer literal that is
 * not a safe integer becomes its exact decimal text. Every other number (safe integers, decimals, exponents)
 * stays a number. The number's text is the parser's (lossless-json), never a search over the whole text.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, { parseNumber, onDuplicateKey: lastWins })
}

function parseNumber(text: string): number | string {
  const value = Number(text)
  return isInteger(text) && !Number.isSafeInteger(value) ? text : value
}

const lastWins = ({ newValue }: { newValue: unknown }) => newValue

/**
 * express.json with `parseJson` in place of JSON.parse: express.text reads the body as express.json does (the
 * same content type, limit and 413, the same decompression and charsets, of which JSON allows only the UTF
 * ones: any other is the 415 express.json answers), then the text is parsed. An empty body is `{}`, as
 * express.json has it; text that is not JSON is express.json's error (`entity.parse.failed`, a 400).
 */
export function jsonBody(options: { limit: string }): RequestHandler {
  const read = express.text({
    type: 'application/json',
    limit: options.limit,
    defaultCharset: 'utf-8',
    verify: (_req, _res, _body, encoding) => {
      if (!encoding.startsWith('utf-'))
        throw Object.assign(new Error(`unsupported charset "${encoding.toUpperCase()}"`), {
          status: 415,
          type: 'charset.unsupported',
        })
    },
  })
  return (req, res, next) =>
    read(req, res, (err?: unknown) => {
      if (err || typeof req.body !== 'string') return next(err)
      const text: string = req.body
      try {
        req.body = text.length === 0 ? {} : parseJson(text)
      } catch (cause) {
        // Anything the parser throws, a stack overflow on absurd nesting included, is the client's malformed JSON.
        return next(
          Object.assign(new SyntaxError('The request body is not valid JSON', { cause }), {
            status: 400,
            type: 'entity.parse.failed',
          }),
        )
      }
      next()
    })
}
