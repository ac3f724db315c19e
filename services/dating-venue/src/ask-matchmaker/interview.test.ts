import { describe, expect, it } from 'vitest'
import { Heart } from '../heart/heart-schema.ts'
import { answerInterview, type Draft, INTERVIEW, nextQuestion } from './interview.ts'

describe('the offline interview', () => {
  it('drafts the doc field by field into a doc the schema accepts', () => {
    let draft: Draft = {}
    let skipped: string[] = []
    const answers = [
      'I restore old sailboats and read too much history.',
      'Someone curious who likes slow Sunday mornings.',
      'long-term',
      'honesty, kindness , curiosity',
      'sailing, history',
      'none',
      'calm and a little nerdy',
      'none',
    ]
    expect(nextQuestion(draft)?.field).toBe('about')
    for (const [index, answer] of answers.entries()) {
      const turn = answerInterview(draft, skipped, answer)
      expect(turn.kind, answer).toBe('accepted')
      if (turn.kind !== 'accepted') return
      draft = turn.draft
      skipped = turn.skipped
      expect(turn.complete).toBe(index === answers.length - 1)
    }
    expect(draft).toEqual({
      about: 'I restore old sailboats and read too much history.',
      seeking: 'Someone curious who likes slow Sunday mornings.',
      relationship_intent: 'long-term',
      values: ['honesty', 'kindness', 'curiosity'],
      interests: ['sailing', 'history'],
      vibe: 'calm and a little nerdy',
    })
    expect(skipped).toEqual(['dealbreakers', 'logistics'])
    expect(Heart.safeParse(draft).success).toBe(true)
  })

  it('refuses contact details and answers the schema refuses, asking again', () => {
    const leaked = answerInterview({}, [], 'Text me at 415 555 0199, I sail.')
    expect(leaked.kind).toBe('refused')
    expect(leaked.reply).toContain('contact details (phone)')
    expect(leaked.reply).not.toContain('0199')
    expect(leaked.reply).toContain(INTERVIEW[0]!.question)
    const long = answerInterview({}, [], 'x'.repeat(2001))
    expect(long.kind).toBe('refused')
    const required = answerInterview({ about: 'a' }, [], 'none')
    // `seeking` is not optional: "none" is an answer, not a skip.
    expect(required).toMatchObject({ kind: 'accepted', draft: { seeking: 'none' } })
  })
})
