// Data for `screenPersonalData`: word lists and patterns, compiled once at import.
// Every pattern here runs on `NormalizedText.lower` unless its comment says `plain`.

/** Default regions for numbers written without a country code (libphonenumber needs one). */
export const PHONE_REGIONS = ['US', 'GB', 'DE', 'IN', 'BR', 'AU', 'FR', 'NG'] as const

/** Digit runs this long are a phone number whatever libphonenumber thinks (555 numbers). */
export const PHONE_RUN_DIGITS = 9
/** Shorter runs (7-8 digits: a local number) count when a cue word is near. */
export const PHONE_CUED_RUN_DIGITS = 7
export const PHONE_CUE_WINDOW = 40

// Separators people put between the digits of one number ("5 5 5 - 8 6 7", "555.867.5309").
// Commas are in ("fifty five five, eight six seven"); newlines and colons are not: they
// split list items and times in prose.
export const DIGIT_RUN = /\d(?:[ \t\-\u2010-\u2015\u2022\u00B7.,()/\\_*+~|]{0,3}\d)*/g
export const PHONE_CUE =
  /\b(?:call|calls|text|texts|txt|phone|number|num|digits|cell|cellphone|mobile|tel|sms|imessage|whatsapp|signal|telegram|ring|dial|reach me|hmu)\b/

// Mail providers: "jane at gmail" is an address even without the ".com".
export const MAIL_PROVIDERS = new Set([
  'gmail',
  'googlemail',
  'yahoo',
  'ymail',
  'hotmail',
  'outlook',
  'icloud',
  'protonmail',
  'proton',
  'pm',
  'aol',
  'gmx',
  'yandex',
  'zoho',
  'fastmail',
  'tutanota',
  'msn',
  'mailinator',
])
// Top-level domains accepted after a spelled-out "dot" ("jane dot com" is not written for
// other reasons; a longer list would turn "at uni dot in" style prose into addresses).
export const SPELLED_TLDS = new Set([
  'com',
  'net',
  'org',
  'io',
  'co',
  'me',
  'uk',
  'de',
  'in',
  'br',
  'fr',
  'ca',
  'au',
  'us',
  'edu',
  'info',
  'biz',
  'app',
  'dev',
  'ai',
  'xyz',
  'ly',
  'gg',
  'tv',
  'eth',
  'sol',
])
// Words that are the subject of "<word> at <company>" rather than a mailbox name.
export const NOT_A_MAILBOX = new Set([
  'i',
  'im',
  'me',
  'am',
  'is',
  'are',
  'was',
  'be',
  'work',
  'works',
  'worked',
  'working',
  'job',
  'intern',
  'interned',
  'engineer',
  'pm',
  'dev',
  'designer',
  'manager',
  'employed',
  'met',
  'meet',
])
// Words before a spelled "dot com" that mean the era or the bubble, not a site.
export const NOT_A_SITE = new Set(['the', 'a', 'my', 'that', 'this', 'of', 'early', 'old', 'big'])

const AT_WORD = String.raw`(?:[[({<]\s*at\s*[\])}>]|\bat\b)`
const DOT_WORD = String.raw`(?:[[({<]\s*dot\s*[\])}>]|\bdot\b)`
// "@" or a bracketed at: strong signals, so spaced dots are accepted ("jane @ gmail . com").
export const EMAIL_STRONG = new RegExp(
  String.raw`(?<![a-z0-9._%+-])([a-z0-9][a-z0-9._%+-]*)\s*(?:@|[[({<]\s*at\s*[\])}>])\s*([a-z0-9-]+)((?:\s*(?:${DOT_WORD}|\.)\s*[a-z0-9-]+)*)`,
  'g',
)
// A bare "at": only unspaced literal dots count, since "at ucla. in my free time" is prose.
export const EMAIL_SPELLED = new RegExp(
  String.raw`(?<![a-z0-9._%+-])([a-z0-9][a-z0-9._%+-]*)\s+${AT_WORD}\s+([a-z0-9-]+)((?:\s*${DOT_WORD}\s*[a-z0-9-]+|\.[a-z0-9-]+)*)`,
  'g',
)
export const DOT_SEPARATOR = new RegExp(String.raw`\s*(?:${DOT_WORD}|\.)\s*`)
// "my gmail is janedoe92", "hotmail: jane.doe".
export const PROVIDER_NAMED = new RegExp(
  String.raw`\b(?:${[...MAIL_PROVIDERS].filter((p) => p.length > 2).join('|')})\s*(?::|=|-|\bis\b)\s*[a-z0-9][a-z0-9._]{2,}`,
)
// Spelled "dot" before a TLD, rewritten to "." before linkify sees the text (case-insensitive:
// linkify runs on `plain`).
export const SPELLED_DOT = new RegExp(
  String.raw`\b([a-z0-9-]+)\s*(?:[[({<]\s*dot\s*[\])}>]|\sdot\s)\s*(${[...SPELLED_TLDS].join('|')})\b`,
  'gi',
)

// Platform names that are never ordinary words (`handle` rules A, B, D).
const PLATFORMS_STRONG = String.raw`insta|instagram|ig|snap|snapchat|telegram|tg|whatsapp|whats app|discord|kik|onlyfans|only fans|fansly|twitter|twitter\s*/\s*x|tiktok|fb|facebook|wechat|weixin|skype|bsky|bluesky|mastodon|hinge|tinder|bumble|grindr|linkedin|venmo|cashapp|cash app`
// Plus names that are ordinary words too; only used after an explicit invitation. (LINE is
// left out: "catch me at line dancing".)
const PLATFORMS_ANY = `${PLATFORMS_STRONG}|signal|threads|reddit|messenger|x|viber|the gram|gram`
const NAME = `@?([a-z0-9][a-z0-9._-]{2,})`
// Words that follow "my insta is" without being a handle ("my insta is private").
export const NOT_A_HANDLE = new Set([
  'private',
  'public',
  'mostly',
  'mainly',
  'just',
  'full',
  'all',
  'dead',
  'inactive',
  'deleted',
  'empty',
  'boring',
  'only',
  'the',
  'my',
  'not',
  'pretty',
  'very',
  'really',
  'too',
  'where',
  'how',
  'what',
  'about',
  'kind',
  'sort',
  'basically',
  'literally',
  'filled',
  'never',
  'always',
  'and',
  'but',
  'for',
  'im',
  'you',
  'mine',
  'was',
  'has',
  'have',
])
/** Each captures the candidate name in group 1 (checked against NOT_A_HANDLE), or none. */
export const HANDLE_PATTERNS: readonly RegExp[] = [
  // A: "insta: jane.doe", "snap @jane", "tg = janedoe", "ig -> jane_92".
  new RegExp(String.raw`\b(?:${PLATFORMS_STRONG})\s*(?::|=|@|->|=>|–|—|→|➡|⇒|»)\s*${NAME}`),
  // B: "my insta is jane.doe", "my snap handle is janedoe", "her ig: jane".
  new RegExp(
    String.raw`\b(?:my|her|his|our)\s+(?:${PLATFORMS_STRONG})(?:\s+(?:handle|username|user name|name|id|acct|account|@))?\s*(?:\bis\b|:|=|-)\s*${NAME}`,
  ),
  // C: an invitation to move off the venue: "add me on snap", "hmu on insta", "dm me on ig".
  new RegExp(
    String.raw`\b(?:add|follow|find|dm|pm|message|msg|hmu|hit me up|text|txt|contact|reach|ping|look me up|search|catch|talk|talk to|chat|chat with|move|switch|continue|slide into my)\b(?:\s+me)?(?:\s+up)?\s+(?:on|at|via|over|over to|through|to|@)\s+(?:my\s+)?(?:${PLATFORMS_ANY})\b()`,
  ),
  // E: "im jane_doe92 on the gram": a name that looks like a handle (digit, dot or underscore).
  new RegExp(
    String.raw`\b(?:im|i am|as)\s+@?([a-z0-9]*[._\d][a-z0-9._]*)\s+on\s+(?:the\s+)?(?:${PLATFORMS_STRONG}|gram)\b`,
  ),
  // "add me on <anything>": the phrase has no innocent reading here.
  /\badd me (?:on|at|via)\s+[a-z]+()/,
  // D: "snap me", "insta me", "kik me", "whatsapp me".
  /\b(?:snap|snapchat|insta|telegram|whatsapp|kik|discord|wechat)\s+me\b()/,
  // "my username is jane92", "handle: janedoe" (the venue handle is not the human's).
  new RegExp(
    String.raw`\b(?:my\s+(?:user\s*name|handle|screen\s*name|gamertag|tag))\s*(?:\bis\b|:|=)\s*${NAME}`,
  ),
  // Reddit-style "u/jane".
  /(?<![a-z0-9])u\/([a-z0-9_-]{3,})/,
]
// Mentions that are times or places ("@5pm", "@home"), not accounts.
export const NOT_A_MENTION = /^@(?:\d|home\b|work\b|gym\b|the\b|night\b|noon\b|midnight\b)/

// Link tokens linkify finds in ordinary tech prose.
export const BARE_DOMAIN_ALLOW = new Set(['asp.net', 'vb.net', 'ado.net', 'node.js', 'socket.io'])
// TLDs that are contact links even when capitalised like a sentence start ("Jane.Com").
export const CONTACT_TLDS = new Set([...SPELLED_TLDS, 'link', 'page', 'site', 'bio', 'social'])

// Wallets. EVM and bech32 are unambiguous; base58 needs mixed case (`plain`).
export const EVM_ADDRESS = /\b0x[0-9a-f]{40}\b/
export const BTC_BECH32 = /\b(?:bc|tb)1[02-9ac-hj-np-z]{25,87}\b/
export const BTC_BASE58 =
  /(?<![1-9A-HJ-NP-Za-km-z])[13][1-9A-HJ-NP-Za-km-z]{25,34}(?![1-9A-HJ-NP-Za-km-z])/g
export const SOLANA_BASE58 =
  /(?<![1-9A-HJ-NP-Za-km-z])[1-9A-HJ-NP-Za-km-z]{32,44}(?![1-9A-HJ-NP-Za-km-z])/g
export const WALLET_CUE =
  /\b(?:sol|solana|wallet|phantom|address|addy|pubkey|public key|usdc|usdt|crypto|tip|tips|donate|send|receive|tron|trc20)\b/
export const WALLET_CUE_WINDOW = 60
export const NAME_SERVICE = /\b[a-z0-9][a-z0-9-]{2,}\.(?:eth|sol)\b/
