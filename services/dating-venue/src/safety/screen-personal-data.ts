import { findPhoneNumbersInText } from 'libphonenumber-js'
import * as linkify from 'linkifyjs'
import 'linkify-plugin-mention'
import { digitsFromWords } from './digits-from-words.ts'
import { findWallet } from './find-wallet.ts'
import { type NormalizedText, normalizeText } from './normalize-text.ts'
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
  if (hasPhone(plain, lower)) found.add('phone')
  for (const kind of findLinks(dotted)) found.add(kind)
  if (hasObfuscatedEmail(lower)) found.add('email')
  if (hasPlatformHandle(lower)) found.add('handle')
  if (findWallet(plain, dotted.toLowerCase())) found.add('wallet')
  return { found: [...found].sort() }
}

const hasPhone = (plain: string, lower: string): boolean => {
  const digitText = digitsFromWords(lower)
  for (const run of digitText.matchAll(DIGIT_RUN)) {
    const digits = run[0].replace(/\D/g, '').length
    if (digits >= PHONE_RUN_DIGITS) return true
    if (digits >= PHONE_CUED_RUN_DIGITS) {
      const from = Math.max(0, run.index - PHONE_CUE_WINDOW)
      const window = digitText.slice(from, run.index + run[0].length + PHONE_CUE_WINDOW)
      if (PHONE_CUE.test(window)) return true
    }
  }
  // Real numbers of 7-8 digits with a country code ("+49 30 901820") have no cue word;
  // libphonenumber knows which lengths each region dials. Skipped for short numbers.
  if (countDigits(plain) < PHONE_CUED_RUN_DIGITS) return false
  return PHONE_REGIONS.some((region) => findPhoneNumbersInText(plain, region).length > 0)
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

const findLinks = (text: string): PersonalDataKind[] => {
  const kinds: PersonalDataKind[] = []
  for (const token of linkify.find(text)) {
    if (token.type === 'email') kinds.push('email')
    else if (token.type === 'mention') {
      // "jane@gmail" is an address without its TLD (the e-mail checks decide); "@5pm" is a time.
      const before = text[token.start - 1]
      if ((before === undefined || !/[\p{L}\p{N}]/u.test(before)) && !NOT_A_MENTION.test(token.value.toLowerCase()))
        kinds.push('handle')
    } else if (token.type === 'url' && !isProseDomain(token.value)) kinds.push('link')
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
