import type { EnglishProfaneWord } from 'obscenity'
import type { DenyCategory } from './types.ts'

// The venue's deny-list, as data. Phrases are plain lowercase words: write "im", not
// "i'm" (apostrophes are dropped from the text), and "pre teen", not "pre-teen" (hyphens
// read as spaces; the space between words is optional, so "pre teen" also catches
// "preteen" and "#sendnudes"). Write words normally ("sugar daddy"): every letter matches
// a run of itself, so "sugar daaaady" and "sugar dady" are caught too (obscenity collapses
// repeated letters; these phrases do not go through obscenity). Leetspeak, look-alike
// letters, "s e n d" spacing and zero-width characters are undone before matching.
// Digits are not allowed here (leetspeak reads 3 as e); see DENY_PATTERNS.

/** Internal: a school-age word is `minors` only near a sexual one (within MINORS_WINDOW). */
export type PhraseCategory = Exclude<DenyCategory, 'profanity'> | 'school_age' | 'sexual_context'

export const MINORS_WINDOW = 40

const AGES = ['eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen']
const SELF = ['im', 'i am', 'im only', 'i am only', 'im just', 'i just turned']

export const DENY_PHRASES: Readonly<Record<PhraseCategory, readonly string[]>> = {
  sexual_solicitation: [
    ...['send nudes', 'send me nudes', 'send me your nudes', 'send your nudes', 'nudes'],
    ...['send noods', 'noods', 'nudez', 'noodz'],
    ...['nude pic', 'nude pics', 'nude photos', 'naked pic', 'naked pics', 'naked photos'],
    ...['nsfw pics', 'nsfw photos', 'nsfw content', 'spicy pics', 'sexy pics', 'dick pic'],
    ...['dick pics'],
    ...['show me your body', 'show me your boobs', 'show me your tits', 'rate my body'],
    ...['dtf', 'down to fuck', 'wanna fuck', 'want to fuck', 'horny', 'booty call'],
    ...['hookup tonight', 'hook up tonight', 'hookup tonite', 'hook up tonite', 'hookup now'],
    ...['hook up now', 'hookup asap', 'fwb tonight', 'fwb now', 'quickie tonight'],
    ...['one night stand tonight', 'netflix and chill tonight', 'nsa fun', 'no strings tonight'],
    ...['sugar daddy', 'sugar baby', 'sugar babe', 'sugar mommy', 'sugar momma', 'sugar mama'],
    ...['seeking arrangement', 'mutually beneficial arrangement', 'pay per meet'],
    ...['pay for sex', 'sex for money', 'escort service', 'escort services', 'im an escort'],
    ...['incall', 'outcall', 'sexting', 'sext', 'sext me', 'cam show', 'cam girl', 'cam boy'],
    ...['onlyfans', 'only fans', 'fansly', 'my of link'],
  ],
  minors: [
    ...['underage', 'under age', 'barely legal', 'jailbait', 'jail bait', 'pre teen', 'preteens'],
    ...['loli', 'lolicon', 'shota', 'shotacon', 'child porn', 'kiddie porn', 'teen porn'],
    ...['teen nudes', 'teen sex', 'young teen', 'young teens', 'not eighteen yet', 'not legal yet'],
    ...['im a minor', 'i am a minor', 'im underage', 'im not eighteen', 'im not an adult'],
    ...['im a teen', 'i am a teen', 'im a teenager', 'i am a teenager', 'im still a teen'],
    ...[
      'im in high school',
      'i am in high school',
      'im still in high school',
      'im in middle school',
    ],
    ...['i am in middle school', 'my parents dont know im here'],
    ...AGES.flatMap((age) => SELF.map((self) => `${self} ${age}`)),
  ],
  // Asks, not mentions: "I send money home" and "I pay my bills on time" are prose.
  money: [
    ...['send me money', 'send me some money', 'send me cash', 'send me the money'],
    ...['wire me', 'wire transfer', 'western union', 'moneygram', 'money gram'],
    ...['cashapp me', 'cash app me', 'my cashapp', 'my cash app', 'your cashapp', 'your cash app'],
    ...['venmo me', 'my venmo', 'your venmo', 'zelle me', 'my zelle', 'your zelle'],
    ...['paypal me', 'my paypal', 'your paypal', 'paypal dot me'],
    ...['buy me a gift card', 'buy me gift cards', 'send me gift cards', 'send gift cards'],
    ...['gift card code', 'gift card codes', 'itunes card', 'google play card', 'steam card'],
    ...['apple gift card', 'amazon gift card', 'bitcoin atm', 'crypto atm'],
    ...['invest in crypto with me', 'invest with me', 'crypto investment opportunity'],
    ...['teach you to invest', 'teach you how to invest', 'teach you to trade'],
    ...['investment opportunity', 'guaranteed returns', 'guaranteed profit', 'double your money'],
    ...['pay for my ticket', 'pay for my flight', 'pay for my plane ticket', 'buy my ticket'],
    ...['buy me a ticket', 'ticket money', 'money for the ticket', 'money for a ticket'],
    ...['lend me money', 'lend me some money', 'loan me', 'borrow some money from you'],
    ...['help me with rent', 'help me pay', 'cover my rent', 'pay my rent for me'],
    ...['pay my hospital bills'],
    ...['bank details', 'bank account details', 'your bank account', 'routing number'],
    ...['account number', 'card details', 'credit card number', 'send me your card'],
    ...['send usdt', 'send usdc', 'send eth', 'send btc', 'send bitcoin', 'send crypto'],
  ],
  // Romance-scam scripts. Honest jobs that scammers also claim ("I work on an oil rig",
  // "deployed overseas") are left out: alone they say too little.
  scam: [
    ...['soldier overseas', 'peacekeeping mission', 'un peacekeeping', 'un doctor'],
    ...['doctor with the un', 'customs fee', 'customs fees', 'clearance fee', 'release fee'],
    ...['stuck at customs', 'held at customs', 'stuck at the airport', 'diplomatic package'],
    ...['investment platform', 'trading platform', 'binary options', 'move to whatsapp'],
    ...['move to telegram', 'move to hangouts'],
    ...['move to google chat', 'talk on whatsapp', 'chat on whatsapp', 'continue on whatsapp'],
    ...['switch to whatsapp', 'switch to telegram', 'talk on telegram', 'chat on telegram'],
    ...['continue on telegram', 'google hangouts', 'inheritance fund', 'unclaimed inheritance'],
    ...['claim my inheritance', 'release my inheritance', 'account is frozen'],
    ...['account was frozen', 'frozen account', 'verification code', 'send me the code'],
    ...['click this link', 'click the link'],
  ],
  harassment: [
    ...['kill yourself', 'kys', 'go kill yourself', 'go die', 'hope you die', 'you should die'],
    ...['deserve to die', 'drink bleach', 'neck yourself', 'unalive yourself', 'hang yourself'],
    ...['slit your wrists', 'i will kill you', 'ill kill you', 'im going to kill you'],
    ...['gonna kill you', 'i will hurt you', 'ill hurt you', 'gonna hurt you'],
    ...['i know where you live', 'rape you', 'beat you up', 'stab you', 'shoot you dead'],
    ...['burn your house', 'youre worthless', 'you are worthless', 'nobody will ever love you'],
  ],
  school_age: [
    ...['teen', 'teens', 'teenager', 'teenage', 'high school', 'middle school', 'junior high'],
    ...['schoolgirl', 'school girl', 'schoolboy', 'school boy'],
    ...['ninth grade', 'tenth grade', 'eleventh grade', 'little girl', 'little boy'],
    // Not "kid(s)"/"child": parents mention them next to everything ("want kids; a bit kinky").
    ...['young girl', 'young boy', 'minor', 'minors'],
  ],
  sexual_context: [
    ...['sexy', 'naked', 'nude', 'nsfw', 'horny', 'sexual', 'have sex', 'sex with', 'kinky'],
    ...['kink', 'fetish', 'erotic', 'lingerie', 'turn me on', 'turned on', 'hookup', 'hook up'],
    ...['sleep with', 'make out', 'pics of you', 'send pics', 'bikini pics'],
  ],
}

/** Patterns that need digits or alternation; they run on the normalized lowercase text. */
export const DENY_PATTERNS: readonly { category: DenyCategory; pattern: RegExp }[] = [
  // Self-stated age under 18: "im 16", "i am 15 years old", "my age is 17". What may
  // follow is listed, so "im 15 minutes away" and "im 16 years into my career" pass.
  {
    category: 'minors',
    pattern:
      /\b(?:im|i am|iam|my age is|my age)\s*:?\s*(?:only\s+|just\s+)?1[0-7](?=\s*(?:$|[.,!?;:)]|(?:yo|y\/o|y\.o|yrs? old|years? old|and|but|lol|btw|so|f|m|girl|boy|looking|here|now|too)\b))/m,
  },
  { category: 'minors', pattern: /\b1[0-7]\s?[fm]\s+(?:looking|here|seeking|lf|dtf)\b/ },
  // A cashtag is a payment handle ("$janedoe"); "$50" is a price.
  { category: 'money', pattern: /(?<![a-z0-9])\$[a-z][a-z0-9_]{2,19}\b/ },
  {
    category: 'money',
    pattern:
      /\bsend\s+(?:me\s+)?(?:\$\s*\d|\d[\d,.]*\s*(?:k\s+)?(?:\$|usd|dollars|bucks|quid|euros?|pounds|usdc|usdt|eth|btc|sol)\b)/,
  },
]

function profaneWords(
  ...groups: (readonly EnglishProfaneWord[])[]
): ReadonlySet<EnglishProfaneWord> {
  return new Set(groups.flat())
}

/** Words of obscenity's English dataset that are slurs: `harassment`, blocked. */
export const SLURS = profaneWords(
  ['abeed', 'abo', 'africoon', 'arabush', 'boonga', 'chingchong', 'chink', 'kike'],
  ['nigger', 'fag', 'tranny', 'retard', 'spastic'],
)

/** Words of obscenity's dataset that also count as sexual context for the minors rule. */
export const SEXUAL_WORDS = profaneWords(
  ['anal', 'anus', 'bestiality', 'blowjob', 'boob', 'buttplug', 'cock', 'cum', 'cuck'],
  ['deepthroat', 'dick', 'dildo', 'doggystyle', 'double penetration', 'ejaculate', 'felch'],
  ['fellatio', 'finger bang', 'fisting', 'gangbang', 'handjob', 'hentai', 'hooker', 'incest'],
  ['jerk off', 'jizz', 'lubejob', 'masturbate', 'orgasm', 'orgy', 'penis', 'porn', 'pussy'],
  ['semen', 'slut', 'tit', 'vagina', 'wank', 'whore'],
)

/** Dropped from obscenity's dataset: "sex" is ordinary adult dating prose ("same-sex", "sex-positive"). */
export const NOT_PROFANE = profaneWords(['sex'])

/** Whole phrases in which a dataset word is innocent. */
export const INNOCENT_PHRASES: readonly string[] = [
  ...['anal about', 'anal retentive', 'cum laude', 'magna cum', 'summa cum', 'scat singing'],
  ...['scat singer', 'moby dick', 'hooker valley', 'dick smith', 'philip k dick'],
  ...['dicks sporting'],
]
