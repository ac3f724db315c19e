import { defaultPadsDirectory, readPadFiles } from '@agents/launch-router/testing'

type Path = (string | number)[]

/** Where a pad's payload template puts a knob (`{ "$knob": name }`), if it puts it in one place. */
export const knobPath = (padId: string, knob: string): Path | undefined => {
  const pad = (readPadFiles(defaultPadsDirectory) as { id: string; payload: unknown }[]).find(
    (candidate) => candidate.id === padId,
  )
  const search = (template: unknown, path: Path): Path | undefined => {
    if (typeof template !== 'object' || template === null) return undefined
    if ((template as Record<string, unknown>).$knob === knob) return path
    for (const [key, value] of Object.entries(template)) {
      const found = search(value, [...path, Array.isArray(template) ? Number(key) : key])
      if (found) return found
    }
    return undefined
  }
  return search(pad?.payload, [])
}

/** A copy of `payload` with `value` written at `path`: what a wallet would send had the router let it through. */
export const injectAt = <payload>(payload: payload, path: Path, value: unknown): payload => {
  const copy = structuredClone(payload) as Record<string | number, unknown>
  let cursor = copy
  for (const key of path.slice(0, -1)) {
    cursor[key] ??= {}
    cursor = cursor[key] as Record<string | number, unknown>
  }
  cursor[path.at(-1)!] = value
  return copy as payload
}
