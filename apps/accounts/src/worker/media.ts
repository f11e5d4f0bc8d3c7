import type { Knex } from '@roost/db'
import { mediaJob, processor } from '@roost/events'
import type { Logger } from '@roost/service'
import { copyRemoteAttachment, fetchRemoteEmoji } from '../activities/remote-media'
import type { Federation } from '../federation/transport/client'
import type { MediaFiles } from '../media/files'
import { failed, processUpload } from '../media/processing'

/** Transcodes at once per worker process: ffmpeg keeps a core busy each, and the worker shares the machine. */
export const MEDIA_CONCURRENCY = 2

/**
 * The `media` queue's processor (docs/media.md, "Video, audio and GIFs"): `media.uploaded` transcodes an upload,
 * reporting its progress to the job (Bull Board shows it) and to the log every tenth; a file ffmpeg cannot
 * convert marks the attachment failed at once, and a job whose last attempt fails for another reason (storage)
 * marks it failed too, so that no upload waits for good. `media.fetch` copies a remote attachment
 * (docs/federation.md, "Remote media"); `emoji.fetch` another server's custom emoji (docs/emoji.md).
 */
export const mediaProcessor = (d: {
  db: Knex
  files: MediaFiles
  federation: Federation
  logger: Logger
  timeoutMs: number
}) =>
  processor({
    schema: mediaJob,
    async process(data, job) {
      if (data.event === 'emoji.fetch') return fetchRemoteEmoji(d, data.customEmojiId)
      const id = data.mediaAttachmentId
      if (data.event === 'media.fetch') return copyRemoteAttachment({ ...d, timeoutMs: d.timeoutMs }, id)
      let logged = 0
      const onProgress = (done: number) => {
        const percent = Math.floor(done * 100)
        void job.updateProgress(percent).catch(() => {})
        if (percent >= logged + 10) {
          logged = percent - (percent % 10)
          d.logger.info({ mediaAttachmentId: id, percent }, 'transcoding')
        }
      }
      try {
        const started = Date.now()
        const { outcome, error } = await processUpload(d.db, d.files, id, {
          timeoutMs: d.timeoutMs,
          onProgress,
        })
        if (outcome === 'failed')
          d.logger.warn({ err: error, mediaAttachmentId: id }, 'media could not be processed: marked failed')
        else if (outcome === 'complete')
          d.logger.info({ mediaAttachmentId: id, ms: Date.now() - started }, 'media processed')
        return outcome
      } catch (err) {
        if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await failed(d.db, id, err as Error)
        throw err
      }
    },
    concurrency: MEDIA_CONCURRENCY,
  })
