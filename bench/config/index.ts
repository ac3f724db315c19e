export { type BenchConfig, benchConfig, SMOKE, skipWithoutPostgres } from './knobs.ts'
export { TS_ARGS } from './ts-args.ts'
