import { castBoolean, paramMissing, unprocessable } from '@roost/service'
import type { Params } from '@roost/service'

/*
 * Readers for the social endpoints' parameters (from `params(req)`): a value of the wrong shape is a 400 naming the
 * parameter (Rails' ParameterMissing wording), never a 500.
 */

export function optionalString(p: Params, name: string, max?: number): string | undefined {
  const value = p[name]
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number') return String(value)
  if (typeof value !== 'string') throw paramMissing(name)
  if (max !== undefined && [...value].length > max)
    throw unprocessable(`Validation failed: ${name} is too long (maximum is ${max} characters)`)
  return value
}

export function optionalBoolean(p: Params, name: string): boolean | undefined {
  const value = p[name]
  if (value !== undefined && value !== null && typeof value === 'object') throw paramMissing(name)
  return castBoolean(value)
}

/** `name[]=…` (form), `name: [...]` (JSON) or a lone `name=…`: an array of strings. */
export function stringArray(p: Params, name: string): string[] {
  const value = p[name] ?? p[`${name}[]`]
  if (value === undefined || value === null || value === '') return []
  const list = Array.isArray(value) ? value : [value]
  if (!list.every((v) => typeof v === 'string' || typeof v === 'number')) throw paramMissing(name)
  return list.map(String)
}

/** A whole number of seconds or the like; blank means `fallback`. */
export function optionalInteger(p: Params, name: string, fallback: number): number {
  const value = p[name]
  if (value === undefined || value === null || value === '') return fallback
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d+$/.test(value)
        ? Number(value)
        : NaN
  if (!Number.isSafeInteger(n)) throw paramMissing(name)
  return n
}
