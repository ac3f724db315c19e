import { z } from 'zod'
import { type LimitPolicy, LimitSetting } from './limit-policy.ts'

const settingName = (name: string) => `RATE_LIMIT_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`

/**
 * The environment settings of a service's limits, one per name:
 * `RATE_LIMIT_<NAME>=points/seconds`, with the service's defaults. Spread
 * into the service's config object; `limitPolicies` reads them back.
 *
 * @example limitSettings({ read: '600/60', 'anonymous-write': '30/60' })
 * // { RATE_LIMIT_READ: ..., RATE_LIMIT_ANONYMOUS_WRITE: ... }
 */
export const limitSettings = <name extends string>(defaults: Record<name, string>) =>
  Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [
      settingName(name),
      z
        .string()
        .default(value as string)
        .pipe(LimitSetting),
    ]),
  ) as Record<string, z.ZodType<LimitPolicy>>

/** The policies a config parsed with `limitSettings` holds, by name. */
export const limitPolicies = <name extends string>(
  config: Record<string, unknown>,
  defaults: Record<name, string>,
): Record<name, LimitPolicy> =>
  Object.fromEntries(
    Object.keys(defaults).map((name) => [name, config[settingName(name)] as LimitPolicy]),
  ) as Record<name, LimitPolicy>

/** `TRUST_FORWARDED_FOR`: `false` (default), `true` (skip non-public hops) or the number of proxies in front. */
export const ForwardedTrustSetting = z
  .string()
  .default('false')
  .transform((value, context) => {
    if (/^(false|0|no|off)$/i.test(value)) return false
    if (/^(true|yes|on)$/i.test(value)) return true
    if (/^\d{1,2}$/.test(value)) return Number(value)
    context.addIssue({ code: 'custom', message: 'true, false or a number of proxies (1-99)' })
    return z.NEVER
  })
