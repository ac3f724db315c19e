/** What `screenPersonalData` can find; only the kind is ever reported, never the value. */
export type PersonalDataKind = 'email' | 'handle' | 'link' | 'phone' | 'wallet'

/** Categories of the venue's own deny-list (plus `profanity` for general obscenity). */
export type DenyCategory =
  | 'harassment'
  | 'minors'
  | 'money'
  | 'profanity'
  | 'scam'
  | 'sexual_solicitation'

/** Where the text is going; `report` texts describe abuse, so content hits are held, not blocked. */
export type SafetyContext = { kind: 'heart' | 'turn' | 'post' | 'intro' | 'report' }

export type SafetyVerdict = {
  verdict: 'allow' | 'hold' | 'block'
  /** Short, stable, human-readable; never quotes the text. */
  reason: string
  /** `personal_data:<kind>`, a `DenyCategory`, or `moderation:<category>`; sorted. */
  categories: string[]
  /** Set when the check could not run (the verdict is then always `block`). */
  unavailable?: true
}

export type SafetyCheck = ((text: string, context?: SafetyContext) => Promise<SafetyVerdict>) & {
  /**
   * Checks many texts at once: the same verdict each would get alone, in
   * order, with the moderation calls batched. Optional: a plain function is a
   * check too (tests replace the check with one); `checkMany` falls back.
   */
  many?: (texts: readonly string[], context?: SafetyContext) => Promise<SafetyVerdict[]>
}
