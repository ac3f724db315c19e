/**
 * The router's limits and their defaults (`RATE_LIMIT_<NAME>=points/seconds`),
 * counted per client (an IPv4 address or an IPv6 /64: the router has no
 * credentials). Chosen so that a normal agent never meets them; the README
 * says why each is what it is.
 */
export const LIMIT_DEFAULTS = {
  /** Every request but /mcp itself (each MCP message counts here, or as its tool's route). */
  read: '1200/60',
  /** Worker-milliseconds of newly mined salts (a remembered salt costs nothing). */
  mining: '4000/600',
} as const

export type RouterLimitName = keyof typeof LIMIT_DEFAULTS
