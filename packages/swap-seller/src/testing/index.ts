export {
  type FakeUpstream,
  type FakeUpstreamBehaviour,
  startFakeUpstream,
} from './start-fake-upstream.ts'
