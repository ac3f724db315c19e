/** Both forms every screen works on; computed once per check. */
export type NormalizedText = {
  /** NFKC with invisible characters removed; case kept (base58 and sentence case need it). */
  plain: string
  /** `plain` lowercased, accents and apostrophes removed, look-alike letters mapped to ASCII. */
  lower: string
}

// Format characters (zero-width space/joiners, bidi controls, soft hyphen, word
// joiner, BOM) plus the fillers and variation selectors that render as nothing:
// all of them can be slipped between digits or letters to dodge a pattern.
const INVISIBLE = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F]/gu
const MARKS = /\p{M}/gu
// Apostrophes vanish so "i'm", "im" and "i’m" read the same to every pattern.
const APOSTROPHES = /['’‘`´ʼ]/g

// Cyrillic and Greek letters that look like Latin ones; NFKC leaves them alone.
const LOOKALIKES = new Map(
  Object.entries({
    а: 'a',
    в: 'b',
    е: 'e',
    ё: 'e',
    і: 'i',
    ј: 'j',
    к: 'k',
    м: 'm',
    н: 'h',
    о: 'o',
    р: 'p',
    с: 'c',
    т: 't',
    у: 'y',
    х: 'x',
    ѕ: 's',
    ԁ: 'd',
    ԝ: 'w',
    ɡ: 'g',
    α: 'a',
    ε: 'e',
    ι: 'i',
    κ: 'k',
    ν: 'v',
    ο: 'o',
    ρ: 'p',
    τ: 't',
    υ: 'u',
  }),
)
const LOOKALIKE = new RegExp(`[${[...LOOKALIKES.keys()].join('')}]`, 'g')

/** Folds the obfuscations that cost nothing to type: fullwidth forms, invisibles, accents, homoglyphs. */
export const normalizeText = (text: string): NormalizedText => {
  const plain = text.normalize('NFKC').replace(INVISIBLE, '')
  const lower = plain
    .normalize('NFD')
    .replace(MARKS, '')
    .toLowerCase()
    .replace(LOOKALIKE, (letter) => LOOKALIKES.get(letter) ?? letter)
    .replace(APOSTROPHES, '')
  return { plain, lower }
}

// Three or more single characters separated by single spaces: "s e n d", "j a n e @ g m a i l".
const SPACED_OUT = /(?<!\S)(?:\S[ \t]){2,}\S(?!\S)/g

/** Closes up letter-by-letter spacing ("n u d e s" -> "nudes"); input is `lower`. */
export const joinSpacedLetters = (lower: string): string =>
  lower.replace(SPACED_OUT, (run) => run.replace(/[ \t]/g, ''))
