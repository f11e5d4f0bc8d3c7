import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { MediaConfig } from '../config'
import type * as S3Module from './s3'

/** One stored file, as a cleanup sweep sees it. */
export interface StoredFile {
  name: string
  size: number
  modified: Date
}

/**
 * Where media files live (docs/media.md, "Where files are kept"): a local directory, the default, or an
 * S3-compatible bucket. Names are random (`<32 hex>[-small].<ext>`) and never reused, so a file is written once,
 * read back by the cleanup and re-encoding commands, and deleted; it is never changed in place.
 */
export interface MediaFiles {
  /** Stores `data` under `name`; the name is new (random), so nothing is overwritten. */
  put(name: string, data: Buffer, contentType: string): Promise<void>
  /** The file's bytes, or undefined when there is none by that name. */
  read(name: string): Promise<Buffer | undefined>
  /** Deletes a file; one already gone is fine. */
  remove(name: string): Promise<void>
  /** Every stored file, in no particular order, for the cleanup sweeps. */
  list(): AsyncIterable<StoredFile>
  /** Lets go of connections (a bucket's client); a directory has none. */
  close?(): void
}

/** The files of a local directory (MEDIA_DIR), served by the accounts service at /media/<name>. */
export function localFiles(dir: string): MediaFiles {
  const at = (name: string) => path.join(dir, path.basename(name))
  return {
    async put(name, data) {
      await mkdir(dir, { recursive: true })
      await writeFile(at(name), data, { flag: 'wx' })
    },
    async read(name) {
      try {
        return await readFile(at(name))
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw err
      }
    },
    async remove(name) {
      await rm(at(name), { force: true })
    },
    async *list() {
      let names: string[]
      try {
        names = await readdir(dir)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
        throw err
      }
      for (const name of names) {
        const s = await stat(at(name)).catch(() => undefined)
        if (s?.isFile()) yield { name, size: s.size, modified: s.mtime }
      }
    },
  }
}

/** The settings mediaFilesOf reads (the media block of src/config.ts). */
export type FilesSettings = Pick<
  MediaConfig,
  | 'MEDIA_DIR'
  | 'S3_ENABLED'
  | 'S3_BUCKET'
  | 'S3_REGION'
  | 'S3_ENDPOINT'
  | 'S3_OVERRIDE_PATH_STYLE'
  | 'S3_PERMISSION'
  | 'AWS_ACCESS_KEY_ID'
  | 'AWS_SECRET_ACCESS_KEY'
  | 'S3_ACCESS_KEY_ID'
  | 'S3_SECRET_ACCESS_KEY'
>

/**
 * The media files of this configuration (docs/media.md, "Where files are kept"): an S3-compatible bucket with
 * S3_ENABLED, else MEDIA_DIR. A bucket without a name is a configuration error, found at start.
 */
export function mediaFilesOf(config: FilesSettings): MediaFiles {
  if (!config.S3_ENABLED) return localFiles(config.MEDIA_DIR)
  if (!config.S3_BUCKET) throw new Error('S3_ENABLED=true needs S3_BUCKET')
  const accessKeyId = config.S3_ACCESS_KEY_ID ?? config.AWS_ACCESS_KEY_ID
  const secretAccessKey = config.S3_SECRET_ACCESS_KEY ?? config.AWS_SECRET_ACCESS_KEY
  if (!accessKeyId !== !secretAccessKey)
    throw new Error('S3: set both the access key id and its secret (S3_ or AWS_ names), or neither')
  // Loaded only for a bucket: the AWS SDK takes half a second to load, which a directory never needs.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load of a heavy module
  const { s3Files } = require('./s3') as typeof S3Module
  return s3Files({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    // Mastodon's rule: path style for an S3_ENDPOINT, unless S3_OVERRIDE_PATH_STYLE; AWS itself by host name.
    forcePathStyle: !!config.S3_ENDPOINT && !config.S3_OVERRIDE_PATH_STYLE,
    acl: config.S3_PERMISSION,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  })
}
