import { seededRandom } from '@agents/service-kit'

// Synthetic heart texts for the embedding bench: one to four sentences built
// from word lists, 40 to 400 characters, from a seeded generator so every run
// embeds the same texts (the encoder's cost grows with the number of tokens).

const OPENERS = [
  'I am',
  'Mostly',
  'Honestly,',
  'Friends say I am',
  'By day I am',
  'Recovering',
  'Part-time',
  'Unapologetically',
  'Somewhere between',
  'Currently',
]
const TRAITS = [
  'an early riser',
  'a night owl',
  'a bookworm',
  'an outdoorsy type',
  'a terrible dancer',
  'a competitive gamer',
  'a hopeless romantic',
  'a spreadsheet enthusiast',
  'a decent cook',
  'a dog person',
  'a cat person',
  'a morning runner',
  'an amateur astronomer',
  'a vinyl collector',
  'a nurse on night shifts',
  'a software engineer',
  'a jazz pianist',
  'a high school teacher',
]
const LIKES = [
  'hiking and mountains',
  'weekends on trails',
  'sourdough and slow mornings',
  'board games and bad puns',
  'live jazz in small bars',
  'learning Japanese',
  'climbing gyms',
  'road trips with no plan',
  'film photography',
  'thrift stores',
  'cold water swimming',
  'cooking for friends',
  'museums on rainy days',
  'indie video games',
  'gardening and tomatoes',
  'salsa classes',
  'long bike rides',
  'street food markets',
  'science fiction novels',
  'volunteering at the shelter',
]
const SEEKING = [
  'Looking for someone who laughs easily.',
  'Hoping to meet someone curious and kind.',
  'Want a partner for spontaneous adventures.',
  'Seeking slow conversations and good coffee.',
  'Looking for something serious, no games.',
  'Open to friendship first and see where it goes.',
  'Hoping to find my trivia night teammate.',
  'Want someone who will share the last dumpling.',
]
const PLACES = [
  'in the city',
  'near the coast',
  'in a small town',
  'between two cities',
  'by the river',
  'up in the hills',
]

/** `count` varied heart texts, the same ones for the same seed. */
export const generateHeartTexts = (count: number, seed = 42): string[] => {
  const random = seededRandom(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
  return Array.from({ length: count }, () => {
    const sentences = [`${pick(OPENERS)} ${pick(TRAITS)} living ${pick(PLACES)}.`]
    const extra = Math.floor(random() * 4)
    if (extra >= 1) sentences.push(`I love ${pick(LIKES)} and ${pick(LIKES)}.`)
    if (extra >= 2) sentences.push(`Weekends mean ${pick(LIKES)}, weeknights ${pick(LIKES)}.`)
    if (extra >= 1 || random() < 0.5) sentences.push(pick(SEEKING))
    if (extra >= 3) sentences.push(`Also ${pick(TRAITS)}, if that matters.`)
    return sentences.join(' ')
  })
}
