/**
 * What went wrong, in the domain's words: the errors that domain code, workers, timers, the inbox and the CLI
 * throw and test (`err instanceof Invalid`), knowing nothing of HTTP. `message` is the sentence a client may read
 * (Mastodon's text: "Record not found", "Validation failed: …"); `cause`, when given, is the internal error behind
 * it, for logs only. The HTTP edge (`@roost/service`, errors.ts) maps each kind to its status in one table.
 */
export type ErrorKind =
  | 'malformed'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'invalid'
  | 'unavailable'

export interface DomainErrorOptions {
  /** The internal error behind this one: logged, never shown to a client. */
  cause?: unknown
}

/** Mastodon's validation `details`: each failed rule per parameter (`ERR_BLANK` and "can't be blank"). */
export type ValidationDetails = Record<string, { error: string; description: string }[]>

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind
  constructor(message: string, options: DomainErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined)
  }
}

/** The input cannot be read at all (a body that is not JSON, an activity without an object). */
export class Malformed extends DomainError {
  readonly kind = 'malformed'
  override readonly name = 'Malformed'
}

/** Who is asking could not be established (an unsigned or badly signed request). */
export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated'
  override readonly name = 'Unauthenticated'
}

/** The asker is known and may not do this. */
export class Forbidden extends DomainError {
  readonly kind = 'forbidden'
  override readonly name = 'Forbidden'
  constructor(message = 'This action is not allowed', options?: DomainErrorOptions) {
    super(message, options)
  }
}

/** The record does not exist, or the asker may not know that it does. */
export class NotFound extends DomainError {
  readonly kind = 'not_found'
  override readonly name = 'NotFound'
  constructor(message = 'Record not found', options?: DomainErrorOptions) {
    super(message, options)
  }
}

/** Another change of the same record won the race; trying again may succeed. */
export class Conflict extends DomainError {
  readonly kind = 'conflict'
  override readonly name = 'Conflict'
}

/** The record existed and is gone for good. */
export class Gone extends DomainError {
  readonly kind = 'gone'
  override readonly name = 'Gone'
}

/** The input breaks a rule ("Validation failed: …"), with Mastodon's per-parameter `details` where it has them. */
export class Invalid extends DomainError {
  readonly kind = 'invalid'
  override readonly name = 'Invalid'
  constructor(
    message: string,
    readonly details?: ValidationDetails,
    options?: DomainErrorOptions,
  ) {
    super(message, options)
  }
}

/** Something this depends on is busy or out of reach for now; the same call may succeed later. */
export class Unavailable extends DomainError {
  readonly kind = 'unavailable'
  override readonly name = 'Unavailable'
  constructor(
    message = 'There was a temporary problem serving your request, please try again',
    options?: DomainErrorOptions,
  ) {
    super(message, options)
  }
}
