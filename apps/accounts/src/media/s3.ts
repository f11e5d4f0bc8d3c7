import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import type { ObjectCannedACL } from '@aws-sdk/client-s3'
import type { MediaFiles, StoredFile } from './files'

/** What an S3 bucket needs (the S3_* settings of src/config.ts; docs/media.md, "Where files are kept"). */
export interface S3Settings {
  bucket: string
  region: string
  /** Unset: AWS. */
  endpoint?: string
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), which every S3-compatible server understands. */
  forcePathStyle: boolean
  /** The ACL of stored files; undefined sends none (buckets with ACLs disabled). */
  acl?: string
  /** Unset: the SDK's own chain (environment, a pod's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string }
}

/**
 * Names are random and never reused (docs/media.md), so a file may be cached forever: the header Mastodon stores
 * with every object, which the bucket (or a CDN in front of it) sends back to clients.
 */
export const IMMUTABLE = 'public, max-age=315576000, immutable'

/** Objects listed per request: S3's maximum. */
const PAGE = 1000

/**
 * The files of an S3-compatible bucket, one object per file at the bucket's root. Files are small buffers, so each
 * is one PutObject and one GetObject (never a multipart transfer, which is what Mastodon's
 * S3_FORCE_SINGLE_REQUEST turns off for servers that mishandle it).
 */
export function s3Files(settings: S3Settings): MediaFiles {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
  })
  const Bucket = settings.bucket
  return {
    async put(name, data, contentType) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: name,
          Body: data,
          ContentType: contentType,
          ContentLength: data.length,
          CacheControl: IMMUTABLE,
          ACL: settings.acl as ObjectCannedACL | undefined,
        }),
      )
    },
    async read(name) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: name }))
        return Buffer.from(await object.Body!.transformToByteArray())
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined
        throw err
      }
    },
    async remove(name) {
      // S3 answers 204 for a key that is not there: removing twice is fine.
      await client.send(new DeleteObjectCommand({ Bucket, Key: name }))
    },
    async *list() {
      let ContinuationToken: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, MaxKeys: PAGE, ContinuationToken }))
        for (const object of page.Contents ?? []) {
          if (!object.Key) continue
          const file: StoredFile = {
            name: object.Key,
            size: object.Size ?? 0,
            modified: object.LastModified ?? new Date(),
          }
          yield file
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (ContinuationToken)
    },
    close: () => client.destroy(),
  }
}
