// geoip-country ships no types; this covers the one call the gate makes.
declare module 'geoip-country' {
  type GeoipCountryRecord = {
    /** ISO 3166-1 alpha-2, upper-case. */
    country: string
    name: string
    continent: string
  }
  const geoip: {
    /** Dotted IPv4, IPv6 (IPv4-mapped in dotted form) or a 32-bit integer; null when there is no record. */
    lookup(ip: string | number): GeoipCountryRecord | null
  }
  export default geoip
}
