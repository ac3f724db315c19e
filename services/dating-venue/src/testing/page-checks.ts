import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'

/** Where the browser tests leave their screenshots for a reviewer (git ignores it). */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../../../test-output/dating-venue', import.meta.url),
)

/** A 390x844 phone at 3x, touch. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
}

/** A new page on a phone-sized viewport. */
export const phonePage = async (browser: Browser): Promise<Page> =>
  (await browser.newContext(PHONE)).newPage()

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
)

type AxeResult = {
  violations: Array<{
    id: string
    impact: string | null
    help: string
    nodes: Array<{ target: unknown[] }>
  }>
}

/**
 * axe-core's WCAG 2.1 A and AA rules over the page as it stands: one line per
 * serious or critical violation (rule, help, the elements). Run through
 * `page.evaluate`, which the page's Content-Security-Policy does not govern.
 */
export const axeViolations = async (page: Page): Promise<string[]> => {
  await page.evaluate(axeSource)
  const result = (await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<unknown> }
      }
    ).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }),
  )) as AxeResult
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help}: ${violation.nodes
          .map((node) => JSON.stringify(node.target))
          .join(', ')}`,
    )
}

/**
 * What a phone user meets that they should not, one line each: the page
 * scrolls sideways; visible text under 12 px; a control (button, field,
 * checkbox, select, a link that stands alone) smaller than 24x24 px, WCAG
 * 2.5.8's minimum (a link inside a sentence is exempt, as there).
 */
export const phoneProblems = (page: Page): Promise<string[]> =>
  // The viewport's width as set, not innerWidth: a mobile browser widens the
  // layout viewport to content that does not fit, and zooms out.
  page.evaluate((width) => {
    const problems: string[] = []
    const root = document.documentElement
    if (root.scrollWidth > width)
      problems.push(`scrolls sideways: content ${root.scrollWidth} px in ${width} px`)
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${
        element.className && typeof element.className === 'string'
          ? `.${element.className.split(' ').join('.')}`
          : ''
      }`
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect()
      const style = getComputedStyle(element)
      return (
        box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none'
      )
    }
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      if (!visible(element)) continue
      const ownText = Array.from(element.childNodes).some(
        (node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim(),
      )
      const size = Number.parseFloat(getComputedStyle(element).fontSize)
      if (ownText && size < 12) problems.push(`text at ${size} px: ${name(element)}`)
      const control = element.matches(
        'button, input:not([type=hidden]), select, textarea, summary, [role=button]',
      )
      const standaloneLink =
        element.matches('a[href]') &&
        !element
          .closest('p, li, td, dd, span')
          ?.textContent?.trim()
          .replace(element.textContent ?? '', '')
          .trim()
      if (control || standaloneLink) {
        const box = element.getBoundingClientRect()
        if (box.width < 24 || box.height < 24)
          problems.push(
            `tap target ${Math.round(box.width)}x${Math.round(box.height)} px: ${name(element)}`,
          )
      }
    }
    return problems
  }, page.viewportSize()?.width ?? 390)

/**
 * The tallest capture, in device pixels, a headless Chromium draws whole:
 * past its largest texture (8,192 px with SwiftShader) a full-page shot
 * repeats the page's top instead of its end.
 */
const MAX_CAPTURE_PX = 8_192

/**
 * A full-page screenshot in `SCREENSHOT_DIR/<name>.png`, for a reviewer to
 * look at: at the page's device scale, or at one pixel per CSS pixel when
 * the page at that scale is taller than Chromium can draw at once (a
 * 2,960 px page on a 3x phone).
 */
export const keepScreenshot = async (page: Page, name: string) => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const height = await page.evaluate(
    () => document.documentElement.scrollHeight * window.devicePixelRatio,
  )
  await page.screenshot({
    path: `${SCREENSHOT_DIR}/${name}.png`,
    fullPage: true,
    scale: height > MAX_CAPTURE_PX ? 'css' : 'device',
  })
}
