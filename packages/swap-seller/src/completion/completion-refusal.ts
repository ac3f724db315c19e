/** Why a completion was not served: stable snake_case codes the route maps to HTTP. */
export const CompletionRefusal = {
  modelMismatch: 'model_mismatch',
  promptTooLarge: 'prompt_too_large',
  grantSpent: 'grant_spent',
  tooManyChoices: 'too_many_choices',
  upstreamUnavailable: 'upstream_unavailable',
  upstreamNoUsage: 'upstream_no_usage',
} as const
export type CompletionRefusal = (typeof CompletionRefusal)[keyof typeof CompletionRefusal]
