/** How the human chat page signs wallets in and keeps their sessions. */
export type HumanChatSettings = {
  /** The domain a SIWE message must name (VENUE_LOGIN_SIWE_DOMAIN, else the BASE_URL host). */
  siweDomain: () => string
  /** The origin a state-changing request may come from (the BASE_URL origin). */
  origin: () => string
  sessionHours: number
  /** How long sealed chat text is kept (VENUE_CHAT_RETENTION_HOURS): what the page can show again. */
  retentionHours: number
  /** Secure cookies: in production and whenever the venue is served over https. */
  secureCookie: () => boolean
}
