import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SafetyCheck } from '../safety/index.ts'
import { createSafetyCheck } from '../safety/index.ts'
import {
  chooseIntros,
  composeIntro,
  type IntroResult,
  introCandidates,
  PLACEHOLDER_INTRO,
  quotesHeart,
  writeIntro,
} from './intro.ts'

const safety = createSafetyCheck()
const heartA = {
  about: 'I fix old bicycles in my garage and ride to the coast at dawn.',
  values: ['patience', 'humour'],
  interests: ['cycling', 'jazz', 'I really love cooking elaborate dinners for friends'],
}
const heartB = {
  about: 'Night owl, jazz records, and long rides along the river.',
  values: ['humour', 'loyalty'],
  interests: ['jazz', 'cycling', 'I really love cooking elaborate dinners for friends'],
}
const texts = [heartA.about, heartB.about] as const

/** A stand-in OpenAI-compatible chat endpoint over HTTP: answers whatever the test sets. */
let reply: { status: number; content?: string } = { status: 200, content: '' }
let requests = 0
const chat = createServer((request, response) => {
  requests++
  request.resume()
  request.on('end', () => {
    response.statusCode = reply.status
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply.content } }] }),
    )
  })
})
let url = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => chat.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(chat.address() as { port: number }).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => chat.close(() => resolve())))

describe('the opening line', () => {
  it('the venue composes it from shared short values and interests, never from prose', () => {
    const line = composeIntro(heartA, heartB)
    expect(line).toContain('humour')
    expect(line).toMatch(/cycling|jazz/)
    expect(line).not.toContain('cooking elaborate dinners')
    expect(quotesHeart(line, texts)).toBe(false)
    expect(composeIntro('plain text heart', heartB)).toBe(PLACEHOLDER_INTRO)
    expect(composeIntro({ about: 'x' }, { about: 'y' })).toBe(PLACEHOLDER_INTRO)
  })

  it('a chat model line is used when it is safe and quotes no heart', async () => {
    reply = {
      status: 200,
      content: 'Two night riders with a soft spot for jazz: who picks the first record?',
    }
    const intro = await writeIntro(
      { safety, chat: { url, model: 'm', timeoutMs: 2000 } },
      [heartA, heartB],
      texts,
    )
    expect(intro).toEqual({ source: 'model', body: reply.content })
  })

  it('a model line that quotes a heart, or is unsafe, or a model that fails, falls back', async () => {
    const before = requests
    for (const bad of [
      {
        status: 200,
        content: 'She said: I fix old bicycles in my garage and ride to the coast. Cute!',
      },
      { status: 200, content: 'Text each other at 415 555 0199 tonight.' },
      { status: 500, content: 'boom' },
      { status: 200, content: '' },
    ]) {
      reply = bad
      const intro = await writeIntro(
        { safety, chat: { url, model: 'm', timeoutMs: 2000 } },
        [heartA, heartB],
        texts,
      )
      expect(intro.source).toBe('venue')
      expect(quotesHeart(intro.body, texts)).toBe(false)
    }
    expect(requests - before).toBe(4)
  })

  it('nothing usable and nothing shared: the neutral placeholder, and the couple still forms', async () => {
    reply = { status: 500 }
    const intro = await writeIntro(
      { safety, chat: { url, model: 'm', timeoutMs: 2000 } },
      [{ about: 'alpha text' }, { about: 'beta text' }],
      ['alpha text', 'beta text'],
    )
    expect(intro).toEqual({ source: 'placeholder', body: PLACEHOLDER_INTRO })
  })

  it('quotesHeart catches a run of six words whatever the case and punctuation', () => {
    expect(quotesHeart('so: I FIX old bicycles, in my garage!', texts)).toBe(true)
    expect(quotesHeart('you both like bicycles and jazz', texts)).toBe(false)
  })
})

describe('opening lines for many pairs at once', () => {
  /** A check that refuses texts containing "bad" and records each batch it was asked. */
  const recording = () => {
    const batches: string[][] = []
    const verdictOf = (text: string) =>
      text.includes('bad')
        ? { verdict: 'block' as const, reason: 'no', categories: [] }
        : { verdict: 'allow' as const, reason: 'ok', categories: [] }
    // A batch of one goes through the single check: recorded as a batch too.
    const check = Object.assign(
      async (text: string) => {
        batches.push([text])
        return verdictOf(text)
      },
      {
        many: async (texts: readonly string[]) => {
          batches.push([...texts])
          return texts.map(verdictOf)
        },
      },
    ) satisfies SafetyCheck
    return { check, batches }
  }
  const model = (body: string): IntroResult => ({ body, source: 'model' })
  const venue = (body: string): IntroResult => ({ body, source: 'venue' })

  it('checks the first line of every pair in one batch, and a later line only where the one before was refused', async () => {
    const { check, batches } = recording()
    const chosen = await chooseIntros(check, [
      [model('model one'), venue('shared line')],
      [model('bad model two'), venue('shared line')],
      [model('bad model three'), venue('bad venue three')],
      [venue('shared line')],
      [],
    ])
    expect(chosen).toEqual([
      model('model one'),
      venue('shared line'),
      { body: PLACEHOLDER_INTRO, source: 'placeholder' },
      venue('shared line'),
      { body: PLACEHOLDER_INTRO, source: 'placeholder' },
    ])
    expect(batches).toEqual([
      ['model one', 'bad model two', 'bad model three', 'shared line'],
      ['bad venue three'],
    ])
  })

  it('a plain function check (no batch form) gives the same choice', async () => {
    const asked: string[] = []
    const plain: SafetyCheck = async (text) => {
      asked.push(text)
      return text.includes('bad')
        ? { verdict: 'block', reason: 'no', categories: [] }
        : { verdict: 'allow', reason: 'ok', categories: [] }
    }
    expect(
      await chooseIntros(plain, [[model('bad one'), venue('good one')], [venue('good one')]]),
    ).toEqual([venue('good one'), venue('good one')])
    expect(asked.sort()).toEqual(['bad one', 'good one'])
  })

  it('candidates: the model line first, then the composed one; a line quoting a heart is none', async () => {
    reply = {
      status: 200,
      content: 'She said: I fix old bicycles in my garage and ride to the coast.',
    }
    const settings = { url, model: 'm', timeoutMs: 2000 }
    const quoting = await introCandidates({ chat: settings }, [heartA, heartB], texts)
    expect(quoting.map((candidate) => candidate.source)).toEqual(['venue'])
    reply = { status: 200, content: 'Two riders who love jazz.' }
    expect(await introCandidates({ chat: settings }, [heartA, heartB], texts)).toEqual([
      model('Two riders who love jazz.'),
      venue(composeIntro(heartA, heartB)),
    ])
    expect(await introCandidates({}, ['plain', 'text'], ['plain', 'text'])).toEqual([])
  })
})
