import unhomoglyph from 'unhomoglyph'

/** Names the venue writes or speaks as; no persona may take one, or a look-alike of one. */
export const RESERVED_HANDLES = ['matchmaker', 'venue', 'operator', 'admin', 'system'] as const

/**
 * The forms a handle is compared in. NFKC folds compatibility characters
 * (fullwidth `ＡＤＭＩＮ`, mathematical `𝐚𝐝𝐦𝐢𝐧`, circled `ⓐ`); NFD then drops the
 * combining marks (`ädmin`); anything that is not a letter or digit goes
 * (spaces, `_ - .`, zero-width characters), so separators cannot split a
 * name. `unhomoglyph` maps each character to its prototype in Unicode's
 * confusables.txt (UTS #39 skeleton: Cyrillic `а` to `a`, `0` to `O`,
 * `m` to `rn`). The skeleton is case-sensitive (`I` and `1` are `l`, `i` is
 * not), and handles compare without case, so it is taken of the handle as
 * given, lowercased and uppercased, each result lowercased: `adm1n`, `admIn`
 * and `admln` all meet `ADMIN`'s skeleton.
 */
const skeletons = (handle: string) => {
  const bare = handle
    .normalize('NFKC')
    .normalize('NFD')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .normalize('NFC')
  return [bare, bare.toLowerCase(), bare.toUpperCase()].map((form) =>
    unhomoglyph(form).toLowerCase(),
  )
}

const RESERVED = new Set(RESERVED_HANDLES.flatMap(skeletons))

/**
 * Whether a persona handle is, or looks like, one of the venue's own names
 * (case, spacing, separators, diacritics, compatibility forms and Unicode
 * confusables ignored), so that no persona's turn can pass for the venue's.
 * Only the whole handle counts: `Smooth Operator` and `revenue` are ordinary.
 *
 * @example isReservedHandle('Match_Maker') // true
 * @example isReservedHandle('аdmin') // true (Cyrillic а)
 * @example isReservedHandle('sailor-sam') // false
 */
export const isReservedHandle = (handle: string): boolean =>
  skeletons(handle).some((form) => RESERVED.has(form))
