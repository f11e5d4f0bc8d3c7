import { Registry } from 'prom-client'
import { z } from 'zod'
import { createRedisPrefix, TEST_REDIS_URL } from '@roost/testing'
import { CONSUMERS, createQueueWorkers, createRedis, processor, QUEUES } from './index'

it('every queue has one consumer process', () => {
  expect(Object.values(CONSUMERS).flat().sort()).toEqual(Object.values(QUEUES).sort())
})

describe('createQueueWorkers', () => {
  const connection = createRedis(TEST_REDIS_URL, { forWorker: true })
  const metrics = new Registry()
  let databaseUp = true
  const done: number[] = []
  const workers = createQueueWorkers({
    process: 'push-worker',
    connection,
    redisPrefix: createRedisPrefix(),
    database: async () => {
      if (!databaseUp) throw new Error('the database does not answer')
    },
    lockMs: 2000,
    metrics,
    logger: { info() {}, warn() {}, error() {} },
  })
  const record = processor({
    schema: z.object({ n: z.number() }),
    async process({ n }) {
      if (!databaseUp) throw new Error('a query failed')
      done.push(n)
    },
    concurrency: 1,
  })
  const notifications = workers.queues[QUEUES.notifications]
  const counted = async (outcome: string) =>
    (await metrics.getSingleMetric('worker_jobs_total')!.get()).values.find(
      (v) => v.labels.queue === QUEUES.notifications && v.labels.outcome === outcome,
    )?.value ?? 0

  afterAll(async () => {
    await workers.close()
    await connection.quit()
  })

  it('is ready once started, with a worker on each queue of its process', async () => {
    await expect(workers.ready()).rejects.toThrow('not running')
    workers.start({
      [QUEUES.notifications]: record,
      [QUEUES.pushDeliveries]: record,
      [QUEUES.accountEvents]: record,
    })
    await workers.ready()
  })

  it('fails a payload its schema refuses for good, without retrying it', async () => {
    const job = await notifications.add('test', { n: 'one' }, { attempts: 5 })
    await workers.idle()
    expect(await job.getState()).toBe('failed')
    const failed = (await notifications.getJob(job.id!))!
    expect(failed.attemptsMade).toBe(1)
    expect(failed.failedReason).toMatch(/^invalid notifications job/)
    expect(await counted('failed')).toBe(1)
  })

  it('waits an outage of the database out without spending an attempt', async () => {
    databaseUp = false
    const job = await notifications.add('test', { n: 2 }, { attempts: 1 })
    while (!(await counted('delayed'))) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await job.getState()).toBe('delayed')
    databaseUp = true
    await workers.idle()
    expect(await job.getState()).toBe('completed')
    expect(done).toEqual([2])
    expect(await counted('done')).toBe(1)
  })

  it('takes no job while paused', async () => {
    await workers.pause()
    await notifications.add('test', { n: 3 })
    await expect(workers.idle(300)).rejects.toThrow('notifications 1')
    await workers.resume()
    await workers.idle()
    expect(done).toEqual([2, 3])
  })
})
