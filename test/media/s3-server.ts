import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, utimesSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'

const ROOT = path.resolve(__dirname, '../..')

// The SDK warns once per process that its releases after January 2027 will need Node 22 (docs/media.md).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'

/**
 * s3rver (an S3-protocol server written in JavaScript, kept in a directory) in a process of its own, on a free
 * loopback port. Its own process because s3rver 3.7 makes its list continuation tokens with DES, which Node 20's
 * OpenSSL 3 offers only with --openssl-legacy-provider; a flag for that process alone, not for the tests.
 */
const SERVER = `
const S3rver = require('s3rver')
const [directory, bucket] = process.argv.slice(1)
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] })
server.run().then(({ port }) => console.log(JSON.stringify({ port })), (err) => { console.error(err); process.exit(1) })
process.on('SIGTERM', () => server.close().then(() => process.exit(0)))
`

/** s3rver accepts any key pair that is its own (`S3RVER`/`S3RVER`). */
export const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

export interface S3Server {
  endpoint: string
  bucket: string
  /** The environment that points Roost at this bucket (startStack's `env`). */
  env: Record<string, string>
  /** A client of our own, to look into the bucket. */
  client: S3Client
  /** Every key in the bucket. */
  keys(): Promise<string[]>
  /** An object's bytes, or undefined. */
  object(key: string): Promise<Buffer | undefined>
  /** An object's Content-Type and Cache-Control, as stored. */
  head(key: string): Promise<{ contentType?: string; cacheControl?: string }>
  /**
   * Makes an object look `ms` old (its LastModified): s3rver takes it from its file's mtime. Only for our random
   * file names, which need no escaping on disk.
   */
  age(key: string, ms: number): void
  /** Stores an object directly, as another program would. */
  put(key: string, data: Buffer, contentType?: string): Promise<void>
  stop(): Promise<void>
}

/** Starts an S3-protocol server on loopback with a fresh, empty bucket. */
export async function startS3Server(bucket = 'roost-media'): Promise<S3Server> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'roost-s3-'))
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SERVER, directory, bucket], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)))
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line).port))
  })
  const endpoint = `http://127.0.0.1:${port}`
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_KEYS })
  return {
    endpoint,
    bucket,
    env: {
      S3_ENABLED: 'true',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: S3_KEYS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3_KEYS.secretAccessKey,
    },
    client,
    async keys() {
      const keys: string[] = []
      let ContinuationToken: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }))
        for (const o of page.Contents ?? []) keys.push(o.Key!)
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (ContinuationToken)
      return keys.sort()
    },
    async object(key) {
      try {
        const o = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        return Buffer.from(await o.Body!.transformToByteArray())
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return undefined
        throw err
      }
    },
    async head(key) {
      const o = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))
      return { contentType: o.ContentType, cacheControl: o.CacheControl }
    },
    age(key, ms) {
      const then = new Date(Date.now() - ms)
      utimesSync(path.join(directory, bucket, `${key}._S3rver_object`), then, then)
    },
    async put(key, data, contentType = 'application/octet-stream') {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentType: contentType }),
      )
    },
    async stop() {
      client.destroy()
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
