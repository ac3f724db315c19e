export { API_VERSION, buildApp, SERVICE_NAME } from './app.ts'
export { readConfig, VenueConfig } from './config.ts'
export { startVenue, type Venue } from './start.ts'
