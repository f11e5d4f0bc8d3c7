import { readFileSync } from 'node:fs'
import path from 'node:path'
import { CONSUMERS, outboxEvent, queueOf, QUEUES } from '@roost/events'
import type { EventName } from '@roost/events'
import { createConsumers } from '../apps/accounts/src/worker/activities'

/** The table of docs/activities.md, "What each event sets off": event → its queue and what consumes it. */
function documented() {
  const doc = readFileSync(path.join(__dirname, '..', 'docs', 'activities.md'), 'utf8')
  const section = doc.split('\n## What each event sets off\n')[1]!.split('\n## ')[0]!
  const rows = section.split('\n').filter((line) => line.startsWith('| `'))
  return Object.fromEntries(
    rows.map((row) => {
      const [event, queue, consumers] = row
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim())
      return [event!.replace(/`/g, ''), { queue, consumers: consumers!.split(', ').filter(Boolean) }]
    }),
  )
}

/** What the code says: an activity's consumers in the order they run, another event's consuming process. */
function actual() {
  // The consumer factories only keep what they are given: a stand-in for every dependency lets us read their keys.
  const anything: never = new Proxy(() => anything, { get: () => anything }) as never
  const consumers = Object.entries(createConsumers(anything))
  const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)
  return Object.fromEntries(
    outboxEvent.options.map((option) => {
      const event: EventName = option.shape.event.value
      const queue = queueOf(event)
      const consumedBy =
        queue === QUEUES.activities
          ? consumers.filter(([, consumer]) => event in consumer).map(([name]) => words(name))
          : Object.entries(CONSUMERS)
              .filter(([, queues]) => (queues as readonly string[]).includes(queue))
              .map(([process]) => process.replace('-', ' '))
      return [event, { queue, consumers: consumedBy }]
    }),
  )
}

it("docs/activities.md's table of every outbox event and its consumers is the code's", () => {
  const table = documented()
  expect(Object.keys(table).length).toBeGreaterThan(40)
  expect(table).toEqual(actual())
})
