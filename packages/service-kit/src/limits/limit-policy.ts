import { z } from 'zod'

/** At most `points` units in any `windowSeconds` window (fixed windows, counted per client). */
export type LimitPolicy = { points: number; windowSeconds: number }

/**
 * A limit setting from the environment, written `points/seconds`
 * (`600/60`: 600 a minute). `0/…` closes the class entirely.
 *
 * @example RATE_LIMIT_READ: z.string().default('600/60').pipe(LimitSetting)
 */
export const LimitSetting = z
  .string()
  .regex(/^\d{1,9}\/\d{1,7}$/, 'a limit is written points/seconds, e.g. 600/60')
  .transform((value): LimitPolicy => {
    const [points, windowSeconds] = value.split('/').map(Number) as [number, number]
    return { points, windowSeconds }
  })
  .refine((policy) => policy.windowSeconds > 0, 'the window is at least 1 second')

/** How a policy is written back in documents and READMEs: `600 per 60 s`. */
export const describePolicy = ({ points, windowSeconds }: LimitPolicy) =>
  `${points} per ${windowSeconds} s`
