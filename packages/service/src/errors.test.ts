import express from 'express'
import request from 'supertest'
import {
  Conflict,
  Forbidden,
  Gone,
  Invalid,
  Malformed,
  NotFound,
  Unauthenticated,
  Unavailable,
} from '@roost/errors'
import { finishApp, sendError } from './app'

/** What a client reads when a handler throws `err`: the error handler of every service. */
async function answerTo(err: unknown) {
  const app = express()
  app.get('/', () => {
    throw err
  })
  const res = await request(finishApp(app)).get('/')
  return { status: res.status, body: res.body as unknown, cacheControl: res.headers['cache-control'] }
}

const secret = new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2')

describe('the table from domain errors to HTTP answers', () => {
  const reply = 'The post you are trying to reply to does not appear to exist.'
  it.each([
    { err: new Malformed('The body is not an activity'), status: 400, error: 'The body is not an activity' },
    { err: new Unauthenticated('Request not signed'), status: 401, error: 'Request not signed' },
    { err: new Forbidden(), status: 403, error: 'This action is not allowed' },
    {
      err: new Forbidden('Following your own account is not allowed'),
      status: 403,
      error: 'Following your own account is not allowed',
    },
    { err: new NotFound(), status: 404, error: 'Record not found' },
    { err: new NotFound(reply), status: 404, error: reply },
    {
      err: new Conflict('Conflict during update, please try again'),
      status: 409,
      error: 'Conflict during update, please try again',
    },
    { err: new Gone('The account is gone'), status: 410, error: 'The account is gone' },
    {
      err: new Invalid("Validation failed: Text can't be blank"),
      status: 422,
      error: "Validation failed: Text can't be blank",
    },
    {
      err: new Unavailable(),
      status: 503,
      error: 'There was a temporary problem serving your request, please try again',
    },
  ])('$err.name answers $status {"error": "$error"}, not cached', async ({ err, status, error }) => {
    expect(await answerTo(err)).toEqual({ status, body: { error }, cacheControl: 'no-store' })
  })

  it('adds Mastodon’s validation details when the error has them', async () => {
    const details = { username: [{ error: 'ERR_BLANK', description: "can't be blank" }] }
    expect(await answerTo(new Invalid("Validation failed: Username can't be blank", details))).toMatchObject({
      status: 422,
      body: { error: "Validation failed: Username can't be blank", details },
    })
  })

  it('never shows the cause, and keeps the kind whatever the cause (a refused connection is not a 503 here)', async () => {
    const err = new Unauthenticated('Unable to fetch key JSON at https://remote.example/key', {
      cause: secret,
    })
    expect(err.cause).toBe(secret)
    const answer = await answerTo(err)
    expect(answer).toMatchObject({
      status: 401,
      body: { error: 'Unable to fetch key JSON at https://remote.example/key' },
    })
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|hunter2/)
  })

  it('answers anything else with a 500 that does not leak its message', async () => {
    const answer = await answerTo(new Error('relation "secret_table" does not exist'))
    expect(answer).toEqual({
      status: 500,
      body: { error: 'Internal server error' },
      cacheControl: 'no-store',
    })
  })

  it('lets a handler add headers of its own to an answer (WebFinger’s cacheable 404)', async () => {
    const app = express()
    app.get('/', (_req, res) =>
      sendError(res, new NotFound(), undefined, { 'Cache-Control': 'max-age=180, public' }),
    )
    const res = await request(app).get('/')
    expect({ status: res.status, body: res.body, cacheControl: res.headers['cache-control'] }).toEqual({
      status: 404,
      body: { error: 'Record not found' },
      cacheControl: 'max-age=180, public',
    })
  })
})
