import { ForwardedTrustSetting } from '@agents/service-kit'
import { z } from 'zod'
import type { GeoGateOptions } from './geo-gate.ts'

/**
 * Default GEO_RESTRICTED: the countries under comprehensive US (OFAC)
 * embargoes that a USDC-settling service cannot serve: Cuba, Iran, North
 * Korea, Syria. Region-level sanctions (Crimea, Donetsk, Luhansk) cannot be
 * expressed with country data; blocking all of UA would be wrong.
 */
export const DEFAULT_GEO_RESTRICTED = 'CU,IR,KP,SY'

const CountryCode = z.string().regex(/^[A-Z][A-Z0-9]$/, 'expected ISO 3166-1 alpha-2 codes')

/**
 * The geo gate's environment variables, to spread into the service config
 * (`...GeoConfig.shape`). Documented in the service README.
 */
export const GeoConfig = z.object({
  /** Comma list of ISO alpha-2 codes; `none` for an empty list. */
  GEO_RESTRICTED: z
    .string()
    .default(DEFAULT_GEO_RESTRICTED)
    .transform((value) =>
      value.trim().toLowerCase() === 'none'
        ? []
        : value
            .split(',')
            .map((code) => code.trim().toUpperCase())
            .filter(Boolean),
    )
    .pipe(z.array(CountryCode)),
  /** A CDN country header to trust (e.g. `cf-ipcountry`); unset = none. */
  GEO_TRUSTED_COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'expected an HTTP header name')
    .optional(),
  /**
   * Whom X-Forwarded-For is believed from, for the gate, the request limits
   * and the floor: `false`, `true` (walk past non-public hops from the right)
   * or the number of proxies in front (the client is that many from the right).
   */
  GEO_TRUST_FORWARDED_FOR: ForwardedTrustSetting,
  GEO_UNKNOWN_POLICY: z.enum(['allow', 'deny']).default('allow'),
})
export type GeoConfig = z.infer<typeof GeoConfig>

/** Turns parsed GEO_* settings into `geoGate` options. */
export const toGeoGateOptions = (
  config: GeoConfig,
  onDenied?: GeoGateOptions['onDenied'],
): GeoGateOptions => ({
  restricted: config.GEO_RESTRICTED,
  trustedCountryHeader: config.GEO_TRUSTED_COUNTRY_HEADER,
  trustForwardedFor: config.GEO_TRUST_FORWARDED_FOR,
  unknownPolicy: config.GEO_UNKNOWN_POLICY,
  onDenied,
})
