export { DEFAULT_GEO_RESTRICTED, GeoConfig, toGeoGateOptions } from './geo-config.ts'
export {
  GEO_DENIED_MESSAGE,
  type GeoGateOptions,
  type GeoUnknownPolicy,
  type GeoVariables,
  geoGate,
} from './geo-gate.ts'
export { lookupCountry } from './lookup-country.ts'
