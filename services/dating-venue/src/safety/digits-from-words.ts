const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
]
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']
const DIGIT_OF = new Map<string, string>([
  ...UNITS.map((word, digit) => [word, String(digit)] as const),
  ['oh', '0'],
  ['nil', '0'],
  ['fourty', '4'],
  ...TEENS.map((word, index) => [word, String(10 + index)] as const),
  ...TENS.map((word, digit) => [word, String(digit)] as const).filter(([word]) => word),
])

const TENS_WORD = `(${TENS.filter(Boolean).join('|')}|fourty)`
const UNIT_WORD = `(${UNITS.slice(1).join('|')})`
const TENS_AND_UNIT = new RegExp(String.raw`\b${TENS_WORD}[\s-]+${UNIT_WORD}\b`, 'g')
const TENS_ALONE = new RegExp(String.raw`\b${TENS_WORD}\b`, 'g')
const SINGLE = new RegExp(String.raw`\b(${[...UNITS, ...TEENS, 'oh', 'nil'].join('|')})\b`, 'g')
const REPEATED = /\b(double|triple)[\s-]*(\d)/g
// A letter o standing in for a zero between digits: "5o9", "5 o 9".
const LETTER_ZERO = /(?<=\d[ .-]?)o(?=[ .-]?\d)/g

/**
 * Rewrites spelled digits as digits ("five five five oh nine" -> "5 5 5 0 9",
 * "fifty three" -> "53", "double five" -> "55") so the digit-run check sees them.
 * Input is `NormalizedText.lower`.
 */
export const digitsFromWords = (lower: string): string =>
  lower
    .replace(
      TENS_AND_UNIT,
      (_, tens: string, unit: string) => DIGIT_OF.get(tens)! + DIGIT_OF.get(unit)!,
    )
    .replace(TENS_ALONE, (tens: string) => `${DIGIT_OF.get(tens)!}0`)
    .replace(SINGLE, (word: string) => DIGIT_OF.get(word)!)
    .replace(REPEATED, (_, times: string, digit: string) =>
      digit.repeat(times === 'double' ? 2 : 3),
    )
    .replace(LETTER_ZERO, '0')
