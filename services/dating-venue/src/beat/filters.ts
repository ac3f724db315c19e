import type { Prefs } from '../heart/heart-schema.ts'

/**
 * One side's `heart.prefs`, normalised once (trimmed, lower-cased sets) so a
 * pair check is a handful of set lookups: the beat checks O(n·k) pairs.
 * `undefined` always means "not stated", which never excludes (rule 2).
 */
export type CompiledFilter = {
  readonly gender: string | undefined
  readonly age: number | undefined
  readonly ethnicity: string | undefined
  readonly languages: readonly string[] | undefined
  readonly substances: string | undefined
  readonly seekGenders: ReadonlySet<string> | undefined
  readonly ageMin: number | undefined
  readonly ageMax: number | undefined
  readonly seekLanguages: ReadonlySet<string> | undefined
  readonly seekEthnicities: ReadonlySet<string> | undefined
  readonly avoidSubstances: ReadonlySet<string> | undefined
  /** True when this side stated no `seek` constraint: it accepts anyone. */
  readonly open: boolean
}

const normalise = (value: string | undefined) => {
  const text = value?.trim().toLowerCase()
  return text ? text : undefined
}

// An empty or blank list states nothing: "empty or absent means any" (spec).
const normaliseList = (values: readonly string[] | undefined) => {
  const list = (values ?? []).map(normalise).filter((value) => value !== undefined)
  return list.length > 0 ? list : undefined
}

const setOf = (values: readonly string[] | undefined) => {
  const list = normaliseList(values)
  return list ? new Set(list) : undefined
}

// Integers by schema; anything else (NaN, Infinity from unchecked input) is treated as unstated.
const finite = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value) ? value : undefined

const ANYONE: CompiledFilter = Object.freeze({
  gender: undefined,
  age: undefined,
  ethnicity: undefined,
  languages: undefined,
  substances: undefined,
  seekGenders: undefined,
  ageMin: undefined,
  ageMax: undefined,
  seekLanguages: undefined,
  seekEthnicities: undefined,
  avoidSubstances: undefined,
  open: true,
})

/**
 * Precomputes one side's filter. Only what the human stated becomes a
 * constraint (rule 3): `self.kids` has no `seek` counterpart and is dropped,
 * and there is no implicit age window, market or distance filter.
 */
export const compileFilter = (prefs: Prefs | undefined): CompiledFilter => {
  if (!prefs || (!prefs.self && !prefs.seek)) return ANYONE
  const { self = {}, seek = {} } = prefs
  const seekGenders = setOf(seek.genders)
  const ageMin = finite(seek.ageMin)
  const ageMax = finite(seek.ageMax)
  const seekLanguages = setOf(seek.languages)
  const seekEthnicities = setOf(seek.ethnicities)
  const avoidSubstances = setOf(seek.dealbreakers?.substances)
  return {
    gender: normalise(self.gender),
    age: finite(self.age),
    ethnicity: normalise(self.ethnicity),
    languages: normaliseList(self.languages),
    substances: normalise(self.substances),
    seekGenders,
    ageMin,
    ageMax,
    seekLanguages,
    seekEthnicities,
    avoidSubstances,
    open:
      !seekGenders &&
      ageMin === undefined &&
      ageMax === undefined &&
      !seekLanguages &&
      !seekEthnicities &&
      !avoidSubstances,
  }
}

/** Whether `seeker`'s stated seek is satisfied by `other`'s self; an unstated attribute passes (rule 2). */
/** Whether `seeker`'s stated `seek` is satisfied by `other`'s `self` (one direction of the pair rule). */
export const accepts = (seeker: CompiledFilter, other: CompiledFilter): boolean => {
  if (seeker.open) return true
  const { gender, age, languages, ethnicity, substances } = other
  if (seeker.seekGenders && gender !== undefined && !seeker.seekGenders.has(gender)) return false
  if (age !== undefined) {
    if (seeker.ageMin !== undefined && age < seeker.ageMin) return false
    if (seeker.ageMax !== undefined && age > seeker.ageMax) return false
  }
  const wanted = seeker.seekLanguages
  if (wanted && languages && !languages.some((language) => wanted.has(language))) return false
  if (seeker.seekEthnicities && ethnicity !== undefined && !seeker.seekEthnicities.has(ethnicity))
    return false
  if (seeker.avoidSubstances && substances !== undefined && seeker.avoidSubstances.has(substances))
    return false
  return true
}

/** `allowedPair` over compiled filters: the form the matchmaker calls in its inner loop. */
export const allowedCompiledPair = (a: CompiledFilter, b: CompiledFilter): boolean =>
  accepts(a, b) && accepts(b, a)

/**
 * Whether two personas may be paired under the spec's filter rules: each
 * side's `seek` must be satisfied by the other side's `self` (mutual), data
 * a side did not state never excludes it, and nothing unstated is applied.
 *
 * @example
 * allowedPair({ seek: { genders: ['woman'] } }, { self: { gender: ' Woman ' } }) // true
 * allowedPair({ seek: { genders: ['woman'] } }, {}) // true: gender not stated
 */
export const allowedPair = (a: Prefs | undefined, b: Prefs | undefined): boolean =>
  allowedCompiledPair(compileFilter(a), compileFilter(b))
