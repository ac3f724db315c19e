export { type NextUpstreamProxy, startNextUpstreamProxy } from './next-upstream-proxy.ts'
export { type ProductionInstall, productionInstall, REPOSITORY_ROOT } from './production-install.ts'
export {
  type ProductionService,
  type ServiceName,
  startProductionService,
} from './production-service.ts'
export { type Rehearsal, type Replica, startRehearsal } from './start-rehearsal.ts'
export { createTestCertificates, type TestCertificates } from './test-ca.ts'
