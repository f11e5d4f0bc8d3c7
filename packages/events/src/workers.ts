import { DelayedError, Queue, UnrecoverableError, Worker } from 'bullmq'
import type { AdvancedOptions, Job } from 'bullmq'
import type { Redis } from 'ioredis'
import { Counter, Histogram } from 'prom-client'
import type { Registry } from 'prom-client'
import type { z } from 'zod'
import { waitingOutOutages } from './outages'
import { bullPrefix, CONSUMERS, pendingJobs } from './queues'
import type { QueueOf, WorkerProcess } from './queues'

/** What a process does with the jobs of one queue. */
export interface QueueProcessor<S extends z.ZodType = z.ZodType> {
  /** The payload's schema: a job whose data does not match it fails for good, as it never will match. */
  schema: S
  /**
   * The job's work, given its parsed payload; `job` and `token` to move the job back to the delayed set (then
   * throw BullMQ's DelayedError). Throwing anything else fails the attempt.
   */
  process(data: z.output<S>, job: Job, token?: string): Promise<unknown>
  /** Jobs of this queue run at once in this process. */
  concurrency: number
  /** The log level of a failed attempt: `info` where failing is routine and retried (another server down). */
  failureLevel?: 'info' | 'warn'
}

/** A processor, its payload typed by its schema. */
export const processor = <S extends z.ZodType>(p: QueueProcessor<S>): QueueProcessor<S> => p

/** The logger calls the workers make (pino's). */
interface WorkerLogger {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}

/**
 * The BullMQ workers of one process (docs/activities.md, "Workers"), one per queue CONSUMERS gives it, all alike:
 * a payload that does not match its schema fails for good (UnrecoverableError), a job failing while Roost's own
 * Postgres does not answer waits the outage out without spending an attempt (`waitingOutOutages`), every run is
 * counted and timed (`worker_jobs_total`, `worker_job_duration_seconds`), failures are logged, a job whose worker
 * died is taken over once its claim lapses (`lockMs`) and run again rather than failed (its processor is
 * idempotent). The queues exist from the start, so that processors and tests can add jobs; the workers from
 * `start()`.
 */
export function createQueueWorkers<P extends WorkerProcess>(options: {
  process: P
  /** A connection for blocking commands (`createRedis(url, { forWorker: true })`). */
  connection: Redis
  redisPrefix: string
  /** The queue's name where configuration names it otherwise (the push worker's PUSH_*_QUEUE). */
  names?: Partial<Record<QueueOf<P>, string>>
  /** A query that answers while Roost's own Postgres is up: asked after a job failed. */
  database: () => Promise<unknown>
  /** How long a job's claim lasts without its worker renewing it (BullMQ's lock duration and stall check). */
  lockMs: number
  /** BullMQ's advanced settings (a backoff strategy of one's own). */
  settings?: AdvancedOptions
  metrics: Registry
  logger: WorkerLogger
}) {
  const { connection, lockMs, settings, logger } = options
  const prefix = bullPrefix(options.redisPrefix)
  const consumed: readonly QueueOf<P>[] = CONSUMERS[options.process]
  const queues = Object.fromEntries(
    consumed.map((queue) => [queue, new Queue(options.names?.[queue] ?? queue, { connection, prefix })]),
  ) as Record<QueueOf<P>, Queue>
  const runs = new Counter({
    name: 'worker_jobs_total',
    help: 'Job runs, by queue, job name and outcome (done, delayed: put back for later, failed)',
    labelNames: ['queue', 'event', 'outcome'],
    registers: [options.metrics],
  })
  const duration = new Histogram({
    name: 'worker_job_duration_seconds',
    help: 'Time to run one job, by queue and job name',
    labelNames: ['queue', 'event'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [options.metrics],
  })
  const databaseDown = () =>
    options.database().then(
      () => false,
      () => true,
    )

  /** The processor BullMQ runs: parse or fail, the work, outages waited out; counted and timed. */
  const run = (queue: QueueOf<P>, p: QueueProcessor) => {
    const work = waitingOutOutages(async (job, token) => {
      const parsed = p.schema.safeParse(job.data)
      if (!parsed.success) throw new UnrecoverableError(`invalid ${queue} job: ${parsed.error.message}`)
      return p.process(parsed.data, job, token)
    }, databaseDown)
    return async (job: Job, token?: string) => {
      const labels = { queue, event: job.name }
      const stop = duration.startTimer(labels)
      try {
        const result = await work(job, token)
        runs.inc({ ...labels, outcome: 'done' })
        return result
      } catch (err) {
        runs.inc({ ...labels, outcome: err instanceof DelayedError ? 'delayed' : 'failed' })
        throw err
      } finally {
        stop()
      }
    }
  }

  let workers: { queue: QueueOf<P>; worker: Worker }[] = []
  return {
    queues,

    /** Starts a worker on each queue of the process. */
    start(processors: { [Q in QueueOf<P>]: QueueProcessor }) {
      workers = consumed.map((queue) => {
        const p = processors[queue]
        const worker = new Worker(queues[queue].name, run(queue, p), {
          connection,
          prefix,
          concurrency: p.concurrency,
          lockDuration: lockMs,
          stalledInterval: lockMs,
          // A job whose worker died is run again, not failed (BullMQ's default fails it at its second stall, which
          // lost a push when the worker died twice during one job): every processor is idempotent.
          maxStalledCount: 10,
          ...(settings ? { settings } : {}),
        })
        worker.on('failed', (job, err) =>
          logger[p.failureLevel ?? 'warn'](
            { err, queue, jobId: job?.id, event: job?.name, attempts: job?.attemptsMade },
            `${queue} job failed`,
          ),
        )
        worker.on('error', (err) => logger.error({ err, queue }, `${queue} worker error`))
        return { queue, worker }
      })
    },

    /** Readiness: every worker runs. */
    async ready() {
      if (!workers.length) throw new Error('the workers are not running')
      for (const { queue, worker } of workers)
        if (!worker.isRunning()) throw new Error(`the ${queue} worker is not running`)
    },

    /** Resolves once no job of these queues is still to be done now (`pendingJobs`; tests, operations). */
    async idle(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const pending = await Promise.all(consumed.map((queue) => pendingJobs(queues[queue], queue)))
        if (pending.every((n) => n === 0)) return
        if (Date.now() > deadline)
          throw new Error(`jobs still pending: ${consumed.map((q, i) => `${q} ${pending[i]}`).join(', ')}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },

    /** Stops taking jobs until `resume()`, once the jobs in progress are done; jobs keep arriving and wait. */
    async pause() {
      await Promise.all(workers.map(({ worker }) => worker.pause()))
    },
    async resume() {
      await Promise.all(workers.map(({ worker }) => worker.resume()))
    },

    /** Closes the workers, which first finish the jobs in progress, then the queues. */
    async close() {
      await Promise.all(workers.map(({ worker }) => worker.close()))
      await Promise.all(Object.values<Queue>(queues).map((queue) => queue.close()))
    },
  }
}
export type QueueWorkers = ReturnType<typeof createQueueWorkers>
