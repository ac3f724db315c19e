export { type BenchConfig, benchConfig, SMOKE, skipWithoutPostgres } from './knobs.ts'
