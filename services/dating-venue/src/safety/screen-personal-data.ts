import { findPhoneNumbersInText } from 'libphonenumber-js'
import * as linkify from 'linkifyjs'
import 'linkify-plugin-mention'
import { digitsFromWords } from './digits-from-words.ts'
import { findWallet } from './find-wallet.ts'
import { joinSpacedLetters, type NormalizedText, normalizeText } from './normalize-text.ts'
import {
  BARE_DOMAIN_ALLOW,
  CONTACT_TLDS,
  DIGIT_RUN,
  DOT_SEPARATOR,
  EMAIL_SPELLED,
  EMAIL_STRONG,
  HANDLE_PATTERNS,
  MAIL_PROVIDERS,
  NOT_A_HANDLE,
  NOT_A_MAILBOX,
  NOT_A_MENTION,
  NOT_A_SITE,
  PHONE_CUE,
  PHONE_CUE_WINDOW,
  PHONE_CUED_RUN_DIGITS,
  PHONE_REGIONS,
  PHONE_RUN_DIGITS,
  PROVIDER_NAMED,
  SPELLED_DOT,
  SPELLED_TLDS,
} from './personal-data-patterns.ts'
import type { PersonalDataKind } from './types.ts'

export type ScreenPersonalDataReturnType = { found: PersonalDataKind[] }

/**
 * Finds contact details in free text: phone numbers, e-mail addresses, social
 * handles, links and crypto wallets, including the usual obfuscations (spelled
 * digits, "at"/"dot", spaced digits, invisible and fullwidth characters).
 * Returns the kinds only, sorted; the matched values never leave this function.
 *
 * @example
 * screenPersonalData('text me five five five 867 5309') // { found: ['phone'] }
 */
export const screenPersonalData = (
  text: string,
  normalized: NormalizedText = normalizeText(text),
): ScreenPersonalDataReturnType => {
  const found = new Set<PersonalDataKind>()
  const { plain, lower } = normalized
  const dotted = /dot/i.test(plain) ? rewriteSpelledDots(plain) : plain
  // Letter-by-letter spacing closed up: dots kept for addresses ("j a n e @ g m a i l . c o m"),
  // dropped for platform names ("s.n.a.p: janedoe").
  const addressText = joinSpacedLetters(lower, { keepDots: true })
  const handleText = joinSpacedLetters(lower)
  if (hasPhone(plain, lower)) found.add('phone')
  for (const kind of findLinks(dotted)) found.add(kind)
  if (addressText !== lower)
    for (const kind of findLinks(rewriteSpelledDots(addressText))) found.add(kind)
  if (hasObfuscatedEmail(addressText)) found.add('email')
  if (hasPlatformHandle(handleText)) found.add('handle')
  if (findWallet(plain, dotted.toLowerCase())) found.add('wallet')
  return { found: [...found].sort() }
}

const SENTENCE_END = /[.!?;]\s|\n/

// Long letter-and-digit tokens (hex keys, addresses, ids) are not numbers to dial.
const LONG_ALPHANUMERIC = /\b(?=[a-z0-9]*[a-z])(?=[a-z0-9]*\d)[a-z0-9]{20,}\b/g

const hasPhone = (plain: string, lower: string): boolean => {
  const digitText = digitsFromWords(lower.replace(LONG_ALPHANUMERIC, ' '))
  let international = false
  let national = false
  for (const run of digitText.matchAll(DIGIT_RUN)) {
    const digits = countDigits(run[0])
    if (digits >= PHONE_RUN_DIGITS) return true
    if (digits < PHONE_CUED_RUN_DIGITS) continue
    // The cue must be in the same sentence: "2015-2019 in Berlin. Call me old-fashioned".
    const end = run.index + run[0].length
    const before = digitText.slice(Math.max(0, run.index - PHONE_CUE_WINDOW), run.index)
    const after = digitText.slice(end, end + PHONE_CUE_WINDOW)
    const sentence = `${before.split(SENTENCE_END).at(-1)} ${after.split(SENTENCE_END)[0]}`
    if (PHONE_CUE.test(sentence)) return true
    if (/\+\s*$/.test(before)) international = true
    else if (run[0].startsWith('0')) national = true
  }
  // Left: 7-8 digit runs without a cue word. libphonenumber knows each country's
  // lengths: "+49 30 901820" is a number, and so is "030 901820" in Germany. Without
  // "+", only numbers written with a trunk "0" are asked about, since DE also accepts
  // bare 8 digits and "2015-2019" is a year range. (It costs ~0.1 ms a region.)
  if (international && findPhoneNumbersInText(plain).length > 0) return true
  return (
    national &&
    PHONE_REGIONS.some((region) =>
      findPhoneNumbersInText(plain, region).some(({ startsAt }) =>
        /^\(?0/.test(plain.slice(startsAt)),
      ),
    )
  )
}

const countDigits = (text: string): number => {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 48 && code <= 57) count++
  }
  return count
}

const rewriteSpelledDots = (plain: string): string =>
  plain.replace(SPELLED_DOT, (match, name: string, tld: string) =>
    NOT_A_SITE.has(name.toLowerCase()) ? match : `${name}.${tld}`,
  )

// linkify is the slowest screen (~0.25 ms per 1,000 characters); prose with no
// "x.y", "x@y", "@name" or "://" cannot hold anything it finds.
const MAY_HOLD_LINK = /[\p{L}\p{N}_-][.@][\p{L}\p{N}]|@[\p{L}\p{N}_]|:\/\//u

const findLinks = (text: string): PersonalDataKind[] => {
  if (!MAY_HOLD_LINK.test(text)) return []
  const kinds: PersonalDataKind[] = []
  for (const token of linkify.find(text)) {
    if (token.type === 'email') kinds.push('email')
    else if (token.type === 'mention') {
      // "jane@gmail" is an address without its TLD (the e-mail checks decide); "@5pm" is a time.
      const before = text[token.start - 1]
      const attached = before !== undefined && /[\p{L}\p{N}]/u.test(before)
      if (!attached && !NOT_A_MENTION.test(token.value.toLowerCase())) kinds.push('handle')
    } else if (token.type === 'url' && !isProseDomain(token.value) && !isMailHost(token.value))
      kinds.push('link')
  }
  return kinds
}

// "Travel.Life is good" is a missing space after a full stop, "ASP.NET" a framework;
// anything with a scheme, www, a path or a port is a link whatever it looks like.
const isProseDomain = (value: string): boolean => {
  if (/^[a-z][a-z0-9+.-]*:|^www\.|[/:?#]/i.test(value)) return false
  if (BARE_DOMAIN_ALLOW.has(value.toLowerCase())) return true
  const tld = value.slice(value.lastIndexOf('.') + 1)
  return /^[A-Z][a-z]+$/.test(tld) && !CONTACT_TLDS.has(tld.toLowerCase())
}

// "jane at gmail dot com" leaves "gmail.com" for linkify: the address, not a link.
const isMailHost = (value: string): boolean =>
  MAIL_PROVIDERS.has(value.toLowerCase().split('.')[0] ?? '') && !/[/:?#@]/.test(value)

const hasObfuscatedEmail = (lower: string): boolean => {
  if (PROVIDER_NAMED.test(lower)) return true
  for (const pattern of [EMAIL_STRONG, EMAIL_SPELLED]) {
    for (const [, mailbox = '', domain = '', rest = ''] of lower.matchAll(pattern)) {
      if (pattern === EMAIL_SPELLED && NOT_A_MAILBOX.has(mailbox)) continue
      if (MAIL_PROVIDERS.has(domain)) return true
      const labels = rest.split(DOT_SEPARATOR).filter(Boolean)
      const tld = labels.at(-1)
      if (tld !== undefined && SPELLED_TLDS.has(tld)) return true
    }
  }
  return false
}

const hasPlatformHandle = (lower: string): boolean =>
  HANDLE_PATTERNS.some((pattern) => {
    const match = pattern.exec(lower)
    return match !== null && !NOT_A_HANDLE.has(match[1] ?? '')
  })
