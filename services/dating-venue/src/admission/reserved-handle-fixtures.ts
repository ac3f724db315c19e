import { RESERVED_HANDLES } from './is-reserved-handle.ts'

/** Each reserved name and the ways a persona could dress it up. */
export const RESERVED_LOOK_ALIKES = [
  ...RESERVED_HANDLES,
  // case
  'Matchmaker',
  'MATCHMAKER',
  'vEnUe',
  // spacing and separators
  'match maker',
  'match_maker',
  'Match-Maker',
  'm.a.t.c.h.m.a.k.e.r',
  'v e n u e',
  'sys.tem',
  'admin_',
  // invisible characters
  'ad\u200bmin',
  'ADMIN\u2060',
  'op\u00aderator',
  // compatibility forms (NFKC)
  'ＡＤＭＩＮ',
  '𝐚𝐝𝐦𝐢𝐧',
  'ⓥⓔⓝⓤⓔ',
  // diacritics
  'ädmin',
  'vénue',
  // Unicode confusables (Cyrillic, Greek, Lisu, digits, letter pairs)
  'аdmin',
  'αdmin',
  'ꓮꓓꓟꓲꓠ',
  'ЅУЅТЕМ',
  'sуstеm',
  'vеnue',
  'adm1n',
  'admIn',
  'admln',
  'adrnin',
  '0perator',
  'OPERAT0R',
  'rnatchrnaker',
]

/** Handles that share letters or words with a reserved name and stay ordinary. */
export const ORDINARY_HANDLES = [
  'sailor-sam',
  'Smooth Operator',
  'revenue',
  'badminton',
  'ecosystem',
  'venus',
  'matchmaking',
  'admiral',
  'systems',
  'the-venue',
  'Zoë',
  '李小龍',
  'Ярослава',
]
