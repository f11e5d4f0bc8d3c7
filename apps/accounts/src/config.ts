import { z } from 'zod'
import { baseEnv, ConfigError, envFlag, envPort, envRate, parseConfig } from '@roost/service'

/**
 * Home feeds are kept for users who made a request within this many days (Mastodon's USER_ACTIVE_DAYS); a
 * returning user's feed is rebuilt. Read by the accounts service and its worker.
 */
const USER_ACTIVE_DAYS = z.coerce.number().int().positive().default(7)

/**
 * A streaming read replica of DATABASE_URL (Mastodon's REPLICA_DB_*), for the heavy reads that tolerate a little lag
 * (docs/operations.md, "Read replica"). Empty: every read goes to DATABASE_URL. Read by the accounts service and
 * its worker (feed regeneration).
 */
const REPLICA_DATABASE_URL = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))

/**
 * The shortest poll, in seconds (Mastodon's 300, shown in /api/v2/instance). Only tests lower it, to see polls end
 * within seconds. Read by the accounts service and its worker (which publishes scheduled statuses with polls).
 */
const POLL_MIN_EXPIRATION_SECONDS = z.coerce.number().int().min(1).default(300)

/** Federation (docs/federation.md), read by the accounts service and its worker alike. */
const federationEnv = {
  /**
   * The `@host` part of local accounts' addresses (Mastodon's LOCAL_DOMAIN): a host name, optionally with a port
   * (`127.0.0.1:4100`, as a development Mastodon's `localhost:3000`). Unset: the host of PUBLIC_URL. It may differ
   * from PUBLIC_URL's host, as Mastodon's LOCAL_DOMAIN may differ from its WEB_DOMAIN.
   */
  LOCAL_DOMAIN: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/i, 'a host name, optionally with :port')
    .optional(),
  /** ActivityPub on (the default) or off: off, the server answers no WebFinger or ActivityPub request. */
  FEDERATION: envFlag(true),
  /**
   * Development and tests only, never the default: peers may be reached over plain http:// and on loopback or
   * private addresses (which the outbound client otherwise refuses after DNS resolution).
   */
  FEDERATION_ALLOW_HTTP: envFlag(false),
  /**
   * Secure mode (Mastodon's AUTHORIZED_FETCH): actors, their collections and statuses are served only to requests
   * signed by a server that is not suspended (the instance actor and discovery stay open).
   */
  AUTHORIZED_FETCH: envFlag(false),
  /**
   * The HTTP signature scheme tried first with a server whose answer is not known yet (docs/federation.md, "HTTP
   * signatures"): `draft-cavage` (the default, as Mastodon 4.5) or `rfc9421`; the other is tried after a 401,
   * and what a server accepted is remembered for it.
   */
  HTTP_SIGNATURE_FIRST: z.enum(['draft-cavage', 'rfc9421']).default('draft-cavage'),
}

/** An optional setting: unset and empty (as .env.example leaves it) are the same. */
const optional = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))

/**
 * Where media files are kept and served from (docs/media.md, "Where files are kept"), read by the accounts
 * service, its worker and the `media` commands of the CLI alike: the service stores uploads, the worker stores
 * copies of remote media and sweeps the cache, and all three must see the same files. Mastodon's names.
 */
export const mediaEnv = {
  /** Where uploaded avatars, headers and attachments, and cached remote attachments, are kept (served at /media/<file>). */
  MEDIA_DIR: z.string().default('.data/media'),
  /** Every file in an S3-compatible bucket instead of MEDIA_DIR (Mastodon's S3_ENABLED); needs S3_BUCKET. */
  S3_ENABLED: envFlag(false),
  /** The bucket. */
  S3_BUCKET: optional(),
  /** The bucket's region (Mastodon's default us-east-1; most S3-compatible servers ignore it). */
  S3_REGION: z.string().default('us-east-1'),
  /**
   * The S3 API's address for a server other than AWS (`https://s3.example.net`, a MinIO, Garage or R2 address);
   * unset: AWS in S3_REGION. Files are then served from `<S3_ENDPOINT>/<S3_BUCKET>/` unless S3_ALIAS_HOST says
   * otherwise.
   */
  S3_ENDPOINT: optional(),
  /**
   * As Mastodon: with S3_ENDPOINT the bucket is addressed by path (`<endpoint>/<bucket>/<key>`), which every
   * S3-compatible server understands; `true` uses the bucket's own host name (`<bucket>.<endpoint host>`) instead.
   */
  S3_OVERRIDE_PATH_STYLE: envFlag(false),
  /** The scheme of the files' URLs on S3_ALIAS_HOST or S3_HOSTNAME (Mastodon's default https). */
  S3_PROTOCOL: z.enum(['https', 'http']).default('https'),
  /** The host files are served from by path (`<S3_PROTOCOL>://<S3_HOSTNAME>/<S3_BUCKET>/`), as Mastodon's S3_HOSTNAME. */
  S3_HOSTNAME: optional(),
  /**
   * A host (a CDN, or a proxy in front of the bucket) that serves the bucket's files at its root: URLs are
   * `<S3_PROTOCOL>://<S3_ALIAS_HOST>/<file>`. Optionally with a path (`cdn.example.com/media`).
   */
  S3_ALIAS_HOST: optional(),
  /**
   * The ACL of every stored file (Mastodon's S3_PERMISSION, default public-read, since clients load files straight
   * from the bucket); empty sends none, for buckets with ACLs disabled whose policy makes them public.
   */
  S3_PERMISSION: z
    .string()
    .optional()
    .transform((v) => (v === undefined ? 'public-read' : v.trim() || undefined)),
  /** The key id for the bucket, as Mastodon names it; unset with S3_ACCESS_KEY_ID too, the SDK's own chain (a pod role). */
  AWS_ACCESS_KEY_ID: optional(),
  /** Its secret, as Mastodon names it. */
  AWS_SECRET_ACCESS_KEY: optional(),
  /** The key id for the bucket under the name the issue gave it; wins over AWS_ACCESS_KEY_ID when both are set. */
  S3_ACCESS_KEY_ID: optional(),
  /** Its secret; wins over AWS_SECRET_ACCESS_KEY when both are set. */
  S3_SECRET_ACCESS_KEY: optional(),
  /**
   * Days after which the worker's daily sweep deletes our copies of remote media (Mastodon's
   * MEDIA_CACHE_RETENTION_PERIOD); they are linked to their server again. Unset: kept; also the default of
   * `roost media remove --days` (else 7).
   */
  MEDIA_CACHE_RETENTION_PERIOD: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined
      const days = Number(v)
      if (!Number.isInteger(days) || days < 1) {
        ctx.addIssue({ code: 'custom', message: 'a whole number of days, at least 1' })
        return z.NEVER
      }
      return days
    }),
}

/** The media settings alone, for the CLI's `media` commands (which need none of the service's secrets). */
export const mediaConfigEnv = z.object(mediaEnv)
export type MediaConfig = z.infer<typeof mediaConfigEnv>

/**
 * The longest one ffmpeg run may take on a video, audio file or animated GIF (docs/media.md, "Video, audio and
 * GIFs"): past it the run is killed and the attachment marked failed, so that no file holds a job for good.
 */
const MEDIA_TRANSCODE_TIMEOUT_MS = z.coerce.number().int().min(1000).default(600_000)

/**
 * New sign-ups must confirm their e-mail address before their token works, as Mastodon always asks (on by default).
 * Read by the accounts service, which asks for the confirmation, and by its worker, which sends it: with it on, a
 * production server without SMTP_SERVER refuses to start.
 */
const REQUIRE_EMAIL_CONFIRMATION = envFlag(true)

/** The server's name: in /api/v2/instance, and the name every e-mail is sent in. */
const INSTANCE_TITLE = z.string().default('Roost')

/**
 * E-mail (docs/operations.md, "Mail"), sent by the accounts worker; Mastodon's variable names. Without SMTP_SERVER,
 * each message is written to MAIL_DIR instead and its links are logged (development).
 */
const mailEnv = {
  /** The SMTP server's host name; empty: no SMTP, messages go to MAIL_DIR. */
  SMTP_SERVER: z.string().optional(),
  /** Its port: 587 (submission, STARTTLS), 465 with SMTP_TLS, 25. */
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  /** The user name and password to authenticate with; empty: no authentication. */
  SMTP_LOGIN: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** The From address; empty: notifications@ the host of PUBLIC_URL (Mastodon: notifications@localhost). */
  SMTP_FROM_ADDRESS: z.string().optional(),
  /** TLS from the first byte (SMTPS, usually port 465) rather than STARTTLS. */
  SMTP_TLS: envFlag(false),
  /**
   * STARTTLS: `auto` (when the server offers it), `always` (refuse to send without it) or `never` (Mastodon's
   * SMTP_ENABLE_STARTTLS).
   */
  SMTP_ENABLE_STARTTLS: z.enum(['auto', 'always', 'never']).default('auto'),
  /** `none` accepts any certificate of the SMTP server (a self-signed one); `peer` (the default) checks it. */
  SMTP_OPENSSL_VERIFY_MODE: z.enum(['peer', 'none']).default('peer'),
  /** Where messages are written when there is no SMTP_SERVER, one `.eml` file each. */
  MAIL_DIR: z.string().default('.data/mail'),
}

/** The accounts service's environment (documented in .env.example). */
/**
 * Mastodon's follow ceiling (FollowLimitValidator): an account may follow this many accounts, or above that
 * its followers_count × MAX_FOLLOWS_RATIO, whichever is larger. The worker applies it to imported follows.
 */
const followCeilingEnv = {
  MAX_FOLLOWS_THRESHOLD: z.coerce.number().int().min(0).default(7500),
  MAX_FOLLOWS_RATIO: z.coerce.number().min(0).default(1.1),
}

export const accountsEnv = baseEnv.extend({
  USER_ACTIVE_DAYS,
  REPLICA_DATABASE_URL,
  POLL_MIN_EXPIRATION_SECONDS,
  ...federationEnv,
  ACCOUNTS_PORT: envPort(3001),
  /**
   * How far ahead `scheduled_at` must be, in seconds (Mastodon's ScheduledStatus::MINIMUM_OFFSET, 5 minutes). Only
   * tests lower it, to see scheduled statuses published within seconds.
   */
  SCHEDULED_STATUS_MIN_OFFSET_SECONDS: z.coerce.number().int().min(1).default(300),
  /** A JSON array of private JWKs (ES256, each with a `kid`); the first signs, all verify (key rotation). */
  OAUTH_SIGNING_KEYS: z.string().min(1),
  /** The legacy password grant (removed from Mastodon in 4.4): for development and tests only. */
  OAUTH_PASSWORD_GRANT: envFlag(false),
  /** Signs the sign-in session cookie of the OAuth pages. */
  SESSION_SECRET: z.string().min(32),
  /**
   * Encrypts the TOTP secrets of two-factor sign-in at rest (AES-256-GCM, as Mastodon's OTP_SECRET; docs/security.md).
   * Changing it makes every enrolled authenticator fail: keep it with the database's backups.
   */
  OTP_SECRET: z.string().min(32),
  /**
   * Moderators and admins must use two-factor sign-in (Mastodon's `require_2fa` for staff roles): one without it is
   * sent to enrol when signing in on the OAuth pages, before any app is authorized (docs/security.md).
   */
  REQUIRE_STAFF_TWO_FACTOR: envFlag(false),
  /**
   * Checks the gateway's signatures on the client address it forwards and on its word that it has looked a token
   * up in the revocation list (the gateway's GATEWAY_SECRET).
   */
  GATEWAY_SECRET: z.string().min(32),
  /** `off` disables every rate limit, the sign-in and mail throttles below included (as on the gateway). */
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  /**
   * Failed credentials (wrong password, wrong client secret) per client address and per account or client,
   * `<limit>/<seconds>`: beyond that, 429 until the window ends (Mastodon's throttle_login_attempts).
   */
  RATE_LIMIT_SIGN_IN_IP: envRate('25/300'),
  RATE_LIMIT_SIGN_IN_ACCOUNT: envRate('25/3600'),
  /**
   * Requests that send a mail (a password reset link, a confirmation sent again) per client address and per
   * address or user, `<limit>/<seconds>`: beyond that, 429 (Mastodon's throttle_password_resets and
   * throttle_email_confirmations).
   */
  RATE_LIMIT_MAIL_IP: envRate('25/300'),
  RATE_LIMIT_MAIL_ACCOUNT: envRate('5/1800'),
  /**
   * Password changes per user, `<limit>/<seconds>` (Mastodon's throttle_password_change); wrong current passwords
   * also count as failed sign-ins.
   */
  RATE_LIMIT_PASSWORD_CHANGES: envRate('10/600'),
  /** The server's VAPID public key, shown to apps as `vapid_key`. */
  VAPID_PUBLIC_KEY: z.string().default(''),
  ...mediaEnv,
  MEDIA_TRANSCODE_TIMEOUT_MS,
  /**
   * Who may sign up through POST /api/v1/accounts (Mastodon's `registrations_mode`): `open` (accounts work at
   * once), `approved` (accounts wait for a moderator) or `none` (closed: 403). Open by default so a development
   * server can be tried at once; production sets it explicitly.
   */
  REGISTRATIONS_MODE: z.enum(['open', 'approved', 'none']).default('open'),
  /** In `approved` mode, sign-ups must say why they want to join (`reason`), as Mastodon's `require_invite_text`. */
  REGISTRATIONS_REASON_REQUIRED: envFlag(false),
  /** Minimum age in years to sign up; 0 means no `date_of_birth` is asked for (Mastodon's `min_age`). */
  REGISTRATIONS_MIN_AGE: z.coerce.number().int().min(0).max(120).default(0),
  /** Shown to clients in /api/v2/instance `registrations.message` (e.g. why sign-ups are closed). */
  REGISTRATIONS_MESSAGE: z.string().optional(),
  /**
   * The lowest role that may make invite links (Mastodon's `min_invite_role`, now its `invite_users` permission):
   * `user` lets everyone invite, `moderator` staff, `admin` (Mastodon's default) admins only. Admins always may.
   */
  INVITES_MIN_ROLE: z.enum(['user', 'moderator', 'admin']).default('admin'),
  REQUIRE_EMAIL_CONFIRMATION,
  ...mailEnv,
  ...followCeilingEnv,
  /**
   * Who sees GET /api/v1/instance/domain_blocks (Mastodon's `show_domain_blocks`): `disabled` (404), `users`
   * (signed-in users) or `all`; and who sees the public comment of each (`show_domain_blocks_rationale`).
   */
  SHOW_DOMAIN_BLOCKS: z.enum(['disabled', 'users', 'all']).default('disabled'),
  SHOW_DOMAIN_BLOCKS_RATIONALE: z.enum(['disabled', 'users', 'all']).default('disabled'),
  /** Whether GET /api/v1/instance/peers lists the known servers (Mastodon's `peers_api_enabled`); off means 404. */
  SHOW_PEERS: envFlag(true),
  /** Whether GET /api/v1/instance/activity shows the weekly counts (Mastodon's `activity_api_enabled`); off means 404. */
  SHOW_ACTIVITY: envFlag(true),
  /**
   * A remote profile opened by a local user has its outbox read again when it was last read longer ago than this
   * (docs/federation.md, "Backfill of remote profiles"); 0 never reads it again.
   */
  REMOTE_BACKFILL_STALE_HOURS: z.coerce.number().min(0).default(24),
  /**
   * A remote thread opened by a local user has its replies read at most once in this many minutes, as Mastodon's
   * FETCH_REPLIES_COOLDOWN_MINUTES (docs/federation.md, "Complete threads"); 0 turns the fetch off.
   */
  REMOTE_REPLIES_COOLDOWN_MINUTES: z.coerce.number().min(0).default(15),
  INSTANCE_TITLE,
  /** A short description for /api/v2/instance. */
  INSTANCE_DESCRIPTION: z.string().default('A Mastodon-compatible social network server'),
  /** The contact address in /api/v2/instance `contact.email`. */
  INSTANCE_CONTACT_EMAIL: z.string().default(''),
})

export type AccountsConfig = z.infer<typeof accountsEnv>

/** The domain of local accounts' addresses (`alice@<this>`), lower-cased: LOCAL_DOMAIN, else PUBLIC_URL's host. */
export const localDomainOf = (config: { LOCAL_DOMAIN?: string; PUBLIC_URL: string }) =>
  (config.LOCAL_DOMAIN ?? new URL(config.PUBLIC_URL).host).toLowerCase()

/**
 * A production server that asks sign-ups to confirm their address must be able to send the mail that lets them:
 * without SMTP_SERVER it would write the mail to a directory no one reads, and nobody could ever sign up.
 */
export function checkMailConfig<
  C extends { NODE_ENV: string; REQUIRE_EMAIL_CONFIRMATION: boolean; SMTP_SERVER?: string },
>(config: C): C {
  if (config.NODE_ENV === 'production' && config.REQUIRE_EMAIL_CONFIRMATION && !config.SMTP_SERVER)
    throw new ConfigError(
      'Invalid configuration:\n  SMTP_SERVER: required in production while REQUIRE_EMAIL_CONFIRMATION is on (sign-ups could never confirm their address)',
    )
  return config
}

/** The From address of every mail: SMTP_FROM_ADDRESS, else notifications@ the host of PUBLIC_URL. */
export const mailFromOf = (config: { SMTP_FROM_ADDRESS?: string; PUBLIC_URL: string }) =>
  config.SMTP_FROM_ADDRESS || `notifications@${new URL(config.PUBLIC_URL).hostname}`

export const loadAccountsConfig = (env: Record<string, string | undefined>) =>
  checkMailConfig(parseConfig(accountsEnv, env))

/** The accounts worker's environment (worker-main.ts; documented in .env.example). */
export const accountsWorkerEnv = baseEnv.extend({
  ACCOUNTS_WORKER_PORT: envPort(3004),
  USER_ACTIVE_DAYS,
  REPLICA_DATABASE_URL,
  POLL_MIN_EXPIRATION_SECONDS,
  ...federationEnv,
  ...mediaEnv,
  MEDIA_TRANSCODE_TIMEOUT_MS,
  REQUIRE_EMAIL_CONFIRMATION,
  INSTANCE_TITLE,
  ...mailEnv,
  ...followCeilingEnv,
  /**
   * The largest attachment of a remote status the worker copies (Mastodon's remotable limit, its 99 MB
   * VIDEO_LIMIT); a larger one stays linked to its server (docs/federation.md, "Remote media").
   */
  REMOTE_MEDIA_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(99 * 1024 * 1024),
  /**
   * A remote attachment whose server failed is fetched again this long later, then twice as long, three times in
   * all (docs/federation.md, "Remote media"); then it stays linked. Tests lower it.
   */
  REMOTE_MEDIA_RETRY_BASE_MS: z.coerce.number().int().min(1).default(60_000),
  /**
   * How many of the newest posts of a remote account's outbox the worker stores when the account is first seen
   * here (docs/federation.md, "Backfill of remote profiles"); 0 fetches none.
   */
  REMOTE_BACKFILL_STATUSES: z.coerce.number().int().min(0).max(100).default(20),
  /**
   * Documents read at once from one server by the `fetches` queue (outboxes, replies), across every worker process
   * (docs/federation.md, "What is fetched when").
   */
  FEDERATION_FETCH_HOST_CONCURRENCY: z.coerce.number().int().positive().default(2),
  /** Jobs of the `fetches` queue run at once per worker process. */
  FEDERATION_FETCH_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** Activities handled at once per worker process. */
  ACCOUNTS_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(10),
  /**
   * How long a job stays claimed without its worker renewing the claim: the jobs of a worker that died are taken
   * over this long after it stopped renewing (BullMQ's lockDuration and stalledInterval).
   */
  ACCOUNTS_WORKER_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  /**
   * The first retry of a failed delivery to another server waits this long, each next one twice as long; with
   * 14 attempts the default spans about a week, as Mastodon's retries (docs/federation.md, "Delivery"). Tests
   * lower it.
   */
  FEDERATION_RETRY_BASE_MS: z.coerce.number().int().min(1).default(60_000),
  /**
   * Deliveries in flight to one host at most, across every worker process (docs/federation.md, "Delivery"), so
   * that a slow server holds a few of the workers' slots, not all of them.
   */
  FEDERATION_HOST_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /**
   * A local poll's new counts go to other servers at most this long after a vote, once for all the votes cast
   * meanwhile, as Mastodon's DistributePollUpdateWorker (docs/federation.md, "Polls"). Tests lower it.
   */
  FEDERATION_POLL_UPDATE_DELAY_MS: z.coerce.number().int().min(0).default(180_000),
})

export type AccountsWorkerConfig = z.infer<typeof accountsWorkerEnv>

export const loadAccountsWorkerConfig = (env: Record<string, string | undefined>) =>
  checkMailConfig(parseConfig(accountsWorkerEnv, env))
