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
// (U+034F and the selectors are combining marks, hence alternatives, not class members.)
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]|\u034F|[\uFE00-\uFE0F]/gu
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

// Three or more single letters or digits, each followed by one to three spaces, dots,
// dashes, underscores or asterisks: "s e n d", "n.u.d.e.s". Two ("e.g.", "a.m.") are
// left alone. With `keepDots` a dot is a character, not a spacer: "j a n e @ g m a i l . c o m".
const SPACED_OUT = /(?<![a-z0-9])(?:[a-z0-9@$][ \t.\-_*·•]{1,3}){2,}[a-z0-9@$](?![a-z0-9])/g
const SPACERS = /[ \t.\-_*·•]/g
const SPACED_OUT_KEEP_DOTS =
  /(?<![a-z0-9])(?:[a-z0-9@$.][ \t\-_*·•]{1,3}){2,}[a-z0-9@$.](?![a-z0-9])/g
const SPACERS_KEEP_DOTS = /[ \t\-_*·•]/g

/** Closes up letter-by-letter spacing ("n u d e s" -> "nudes"); input is `lower`. */
export const joinSpacedLetters = (lower: string, { keepDots = false } = {}): string =>
  keepDots
    ? lower.replace(SPACED_OUT_KEEP_DOTS, (run) => run.replace(SPACERS_KEEP_DOTS, ''))
    : lower.replace(SPACED_OUT, (run) => run.replace(SPACERS, ''))
