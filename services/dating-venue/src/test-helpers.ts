import { postJson } from '@agents/service-kit'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Venue } from './start.ts'

export const HEART = {
  about: 'I restore old sailboats and read too much history.',
  seeking: 'Someone curious who likes slow Sunday mornings.',
  values: ['honesty'],
  interests: ['sailing'],
}

/** An owner without the paid intake (that is tested on the devnet): a row and its credential. */
export const createOwner = async (venue: Venue) => {
  const { formatCredential, newSecret } = await import('./credentials/credentials.ts')
  const { owners } = await import('./db/schema.ts')
  const { secret, hash } = newSecret()
  const [owner] = await venue.deps.database.db
    .insert(owners)
    .values({
      wallet: privateKeyToAccount(generatePrivateKey()).address.toLowerCase(),
      credentialHash: hash,
    })
    .returning({ id: owners.id })
  return { ownerId: owner!.id, credential: formatCredential('owner', owner!.id, secret) }
}

/** A verified agent endpoint (signature proof) and its credential. */
export const createAgent = async (
  venue: Venue,
  { ownerCredential, ownerId }: { ownerCredential?: string; ownerId?: number } = {},
  callbackUrl?: string,
) => {
  const account = privateKeyToAccount(generatePrivateKey())
  const registered = await postJson(
    `${venue.url}/api/intake/agent`,
    {
      runtime: 'claude',
      publicKey: account.address,
      ...(ownerId ? { ownerId } : {}),
      ...(callbackUrl ? { callbackUrl } : {}),
    },
    ownerCredential ? { authorization: `Bearer ${ownerCredential}` } : {},
  )
  if (registered.status !== 200) throw new Error(`register: ${registered.text}`)
  const signature = await account.signMessage({ message: registered.json.challengeNonce })
  const verified = await postJson(`${venue.url}/api/intake/agent/verify`, {
    endpointId: registered.json.id,
    signature,
  })
  if (verified.status !== 200) throw new Error(`verify: ${verified.text}`)
  return {
    endpointId: registered.json.id as number,
    credential: verified.json.agentCredential as string,
    account,
  }
}

let handles = 0
export const uniqueHandle = (stem = 'p') => `${stem}-${process.pid}-${++handles}`

/** An admitted persona spoken for by a fresh agent. */
export const admitPersona = async (venue: Venue, heart: unknown = HEART) => {
  const agent = await createAgent(venue)
  const answer = await postJson(
    `${venue.url}/api/personas`,
    { handle: uniqueHandle(), model: 'claude', persona_age: '18+', heart },
    { authorization: `Bearer ${agent.credential}` },
  )
  return { agent, answer }
}
