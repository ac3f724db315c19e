/**
 * The token of an `Authorization: Bearer <token>` header, or undefined when
 * the header is missing or has another scheme. The scheme is matched without
 * regard to case (RFC 9110 section 11.1).
 *
 * @example bearerToken('Bearer vo_1_abc') // 'vo_1_abc'
 * @example bearerToken('Basic dXNlcg==') // undefined
 */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1]
