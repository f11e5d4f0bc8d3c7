import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'

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

/** The media files of this configuration: MEDIA_DIR (docs/media.md, "Where files are kept"). */
export const mediaFilesOf = (config: { MEDIA_DIR: string }): MediaFiles => localFiles(config.MEDIA_DIR)
