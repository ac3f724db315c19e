import { existsSync } from 'node:fs'
import { type Browser, chromium as playwright } from 'playwright-core'

/** Chromium builds a machine may have, in the order they are tried. */
const SYSTEM_CHROMIUMS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
] as const

export type LaunchTestBrowserParameters = {
  /**
   * `system` (a Chromium installed on the machine), `bundled` (the one inside
   * `@sparticuz/chromium`) or a path to a Chromium. By default the machine's
   * Chromium when it has one, otherwise the bundled one.
   */
  browser?: string | undefined
}

type BrowserChoice = { label: string; executablePath: string; args: string[] }

/**
 * Launches a headless Chromium for a browser test, from `npm install` alone
 * (no `apt-get`): the machine's own Chromium if present, else the build that
 * ships compressed inside `@sparticuz/chromium`. `TEST_BROWSER` forces one.
 * Throws with the reason when none can start; a browser test never skips.
 *
 * @example
 * const browser = await launchTestBrowser()
 * try { await (await browser.newPage()).goto(url) } finally { await browser.close() }
 */
export async function launchTestBrowser({
  browser = process.env.TEST_BROWSER,
}: LaunchTestBrowserParameters = {}): Promise<Browser> {
  const choice = await chooseBrowser(browser)
  try {
    return await launchWhenWritten(choice)
  } catch (error) {
    throw new Error(
      `The browser test could not start ${choice.label} (${choice.executablePath}). ` +
        'Set TEST_BROWSER to "bundled", "system" or the path of a Chromium to choose another.',
      { cause: error },
    )
  }
}

/**
 * On a fresh machine two test files unpack the bundled Chromium at once (to
 * the same /tmp/chromium): one may start it while the other still writes it,
 * and the start fails with ETXTBSY. That clears within a moment: try again.
 */
async function launchWhenWritten(choice: BrowserChoice): Promise<Browser> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await playwright.launch({
        executablePath: choice.executablePath,
        args: choice.args,
        headless: true,
      })
    } catch (error) {
      const busy = /ETXTBSY/.test(String((error as Error)?.message ?? error))
      if (!busy || attempt >= 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
}

async function chooseBrowser(browser: string | undefined): Promise<BrowserChoice> {
  const system = SYSTEM_CHROMIUMS.find((path) => existsSync(path))
  if (browser === 'bundled' || (!browser && !system)) return bundledChromium()
  if (browser === 'system' || !browser) {
    if (!system)
      throw new Error(
        `TEST_BROWSER=system, but none of ${SYSTEM_CHROMIUMS.join(', ')} exists. ` +
          'Unset TEST_BROWSER to use the Chromium inside @sparticuz/chromium.',
      )
    return systemChromium(system)
  }
  if (!existsSync(browser)) throw new Error(`TEST_BROWSER=${browser}: no such file.`)
  return systemChromium(browser)
}

// Runs as root on CI, where Chromium's sandbox cannot start.
const systemChromium = (executablePath: string): BrowserChoice => ({
  label: 'the system Chromium',
  executablePath,
  args: ['--no-sandbox'],
})

let bundled: Promise<BrowserChoice> | undefined

/**
 * The package inflates its Chromium (about 200 MB) into the temp directory
 * on first use and reuses it afterwards; one promise per process keeps two
 * launches from inflating it at once.
 */
const bundledChromium = (): Promise<BrowserChoice> => {
  bundled ??= (async () => {
    const { default: chromium } = await import('@sparticuz/chromium')
    try {
      // Its args carry the headless-shell flags the build needs (--headless=shell, --no-sandbox, --no-zygote).
      return {
        label: 'the Chromium bundled in @sparticuz/chromium',
        executablePath: await chromium.executablePath(),
        args: chromium.args,
      }
    } catch (error) {
      bundled = undefined
      throw new Error(
        'The Chromium inside @sparticuz/chromium could not be unpacked (it is built for Linux x64).',
        { cause: error },
      )
    }
  })()
  return bundled
}
