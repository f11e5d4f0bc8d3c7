import { Invalid } from '@roost/errors'

/** One failed rule: Mastodon's `ERR_*` kind and the Rails message (docs/mastodon-compatibility.md, "Sign-up", ValidationErrorFormatter). */
export interface FieldError {
  error: string
  description: string
}

/** Collects validation errors per parameter, then throws them as one 422 in Mastodon's `details` shape. */
export class Validation {
  private readonly errors: Record<string, FieldError[]> = {}

  add(param: string, error: string, description: string) {
    ;(this.errors[param] ??= []).push({ error, description })
  }

  has(param: string) {
    return !!this.errors[param]
  }

  /** `{"error": "Validation failed: Username can't be blank, …", "details": {"username": [...]}}` */
  throwIfAny() {
    const params = Object.keys(this.errors)
    if (!params.length) return
    const messages = params.flatMap((p) => this.errors[p]!.map((e) => `${humanize(p)} ${e.description}`))
    throw new Invalid(`Validation failed: ${messages.join(', ')}`, this.errors)
  }
}

const humanize = (param: string) => {
  const words = param.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

export const blank = (v: Validation, param: string) => v.add(param, 'ERR_BLANK', "can't be blank")
export const tooLong = (v: Validation, param: string, max: number) =>
  v.add(param, 'ERR_TOO_LONG', `is too long (maximum is ${max} characters)`)
export const tooShort = (v: Validation, param: string, min: number) =>
  v.add(param, 'ERR_TOO_SHORT', `is too short (minimum is ${min} characters)`)
export const invalid = (v: Validation, param: string) => v.add(param, 'ERR_INVALID', 'is invalid')

/** A text parameter: strings as given, numbers as their digits (JSON clients), anything else is not text. */
export function text(value: unknown): string | undefined | null {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  return null
}
