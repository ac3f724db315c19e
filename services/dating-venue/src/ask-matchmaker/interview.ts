import { Heart } from '../heart/heart-schema.ts'
import { screenPersonalData } from '../safety/index.ts'

/**
 * The offline interview: with no chat model configured, the matchmaker
 * drafts the dating doc field by field. Each answer is checked against the
 * doc's own schema for that field and the personal-data screen before it
 * enters the draft; a refused answer is asked again with the reason.
 */
export type Draft = Partial<
  Record<'about' | 'seeking' | 'relationship_intent' | 'vibe' | 'logistics', string> &
    Record<'values' | 'interests' | 'dealbreakers', string[]>
>

type Step = { field: keyof Draft; question: string; list?: boolean; optional?: boolean }

export const INTERVIEW: readonly Step[] = [
  {
    field: 'about',
    question:
      'Tell me about yourself, in your own voice: what fills your days, what you care about.',
  },
  {
    field: 'seeking',
    question: 'Who are you hoping to meet? Describe them the way you would to a friend.',
  },
  {
    field: 'relationship_intent',
    question: 'What are you looking for: casual, dating, long-term, open, or unsure?',
  },
  {
    field: 'values',
    question: 'Name a few values that matter most to you, separated by commas.',
    list: true,
  },
  {
    field: 'interests',
    question: 'What are your interests? A few, separated by commas.',
    list: true,
  },
  {
    field: 'dealbreakers',
    question: 'Any dealbreakers? Separate them with commas, or say "none".',
    list: true,
    optional: true,
  },
  { field: 'vibe', question: 'How would your friends describe your vibe?', optional: true },
  {
    field: 'logistics',
    question:
      'Any logistics a match should know (time zone, pace, how often you can meet)? Or "none".',
    optional: true,
  },
]

const NONE = /^(none|no|nothing|n\/a|-)$/i

/** The question of the first field the draft does not have yet; undefined when the draft is complete. */
export const nextQuestion = (draft: Draft, skipped: readonly string[] = []) =>
  INTERVIEW.find((step) => draft[step.field] === undefined && !skipped.includes(step.field))

export type InterviewTurn =
  | { kind: 'accepted'; draft: Draft; skipped: string[]; reply: string; complete: boolean }
  | { kind: 'refused'; reply: string }

/**
 * Takes the human's answer to the current question: checked against the
 * schema's rules for that field and screened for contact details, then
 * added to the draft; the reply asks the next question (or says the draft
 * is ready to submit).
 */
export const answerInterview = (draft: Draft, skipped: string[], answer: string): InterviewTurn => {
  const step = nextQuestion(draft, skipped)
  if (!step)
    return { kind: 'refused', reply: 'Your draft is complete: submit it when you are ready.' }
  const text = answer.trim()
  if (step.optional && NONE.test(text)) return advance(draft, [...skipped, step.field])
  const found = screenPersonalData(text).found
  if (found.length > 0)
    return {
      kind: 'refused',
      reply: `That answer carries contact details (${found.join(', ')}); they never go in the doc. ${step.question}`,
    }
  const value = step.list
    ? text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : text
  const candidate = { about: 'placeholder', ...draft, [step.field]: value }
  const checked = Heart.safeParse(candidate)
  const issue = checked.success
    ? undefined
    : checked.error.issues.find((problem) => problem.path[0] === step.field)
  if (issue) return { kind: 'refused', reply: `${issue.message}. ${step.question}` }
  return advance({ ...draft, [step.field]: value }, skipped)
}

const advance = (draft: Draft, skipped: string[]): InterviewTurn => {
  const next = nextQuestion(draft, skipped)
  return {
    kind: 'accepted',
    draft,
    skipped,
    complete: next === undefined,
    reply: next
      ? `Noted. ${next.question}`
      : 'Your draft is complete. Read it over, then submit it for review when you are ready.',
  }
}
