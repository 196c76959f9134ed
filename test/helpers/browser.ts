import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (README prerequisites; `.ci/run` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Starts headless Chromium. Throws with the reason when it cannot start: a browser test that has no browser fails,
 * it never passes by skipping. The flags keep Chromium off the (closed) network.
 */
export async function launchBrowser(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-quic',
      ],
    });
  } catch (err) {
    throw new Error(
      `Chromium could not start from ${CHROMIUM_PATH} (install Debian's chromium: apt-get install chromium): ${(err as Error).message}`,
    );
  }
}

/** What a page reported that a test should see: CSP violations, uncaught errors, console errors. */
export interface PageProblems {
  cspViolations: string[];
  pageErrors: string[];
  consoleErrors: string[];
}

/** Records a page's CSP violations (from the securitypolicyviolation event), uncaught errors and console errors. */
export async function watchProblems(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { cspViolations: [], pageErrors: [], consoleErrors: [] };
  await page.exposeBinding('__reportCsp', (_source, text: string) => {
    problems.cspViolations.push(text);
  });
  // Browser-side code as text: the test programs are type-checked without the DOM library.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => window.__reportCsp(e.violatedDirective + ' ' + e.blockedURI));",
  });
  page.on('pageerror', (err) => problems.pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.consoleErrors.push(msg.text());
  });
  return problems;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One axe-core finding, reduced to what a failing assertion should print. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2 A/AA rules) on the page as it is now and answers the serious and critical findings.
 * axe is evaluated through the DevTools protocol, so the page's CSP does not have to allow it.
 */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })",
  )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * Signs in to the console at `baseUrl` with `key` as a person would (the form, not storage), and, for a platform key,
 * chooses `organizationId` in the header's picker. Resolves once the console shows the signed-in header.
 */
export async function signIn(page: Page, baseUrl: string, key: string, organizationId?: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header.top .who').waitFor();
  if (organizationId) {
    await page.getByLabel('Organization').selectOption(organizationId);
    // Case-sensitive and anchored: the header reads `Platform …` without an organization, and names the key type
    // (`platform_live`) with one.
    await page.locator('header.top .who', { hasNotText: /^Platform\b/ }).waitFor();
  }
}

/** Where the tests leave the console screenshots docs/console.md shows (committed under docs/). */
export const SCREENSHOT_DIR = new URL('../../docs/screenshots/', import.meta.url);

/** Saves a screenshot of the page as it is now as `docs/screenshots/<name>.png` (the viewport unless `fullPage`). */
export async function saveScreenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  await page.screenshot({
    path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname,
    animations: 'disabled',
    caret: 'hide',
    fullPage: opts.fullPage ?? false,
  });
}

/**
 * The boxes a long value is shown in: cards, facts, notices, fieldsets, figures, and the scrolling boxes of tables,
 * code and drawings. `main#content` is the outermost, so every element of a page has one.
 */
const CARD_SELECTOR =
  '.card, dl.facts > div, dl.counts > div, .option, .notice, fieldset, .viewing, .secret-once, figure, .table-wrap, pre, .diagram, main#content';

/**
 * Elements of the page's content that reach, or whose text reaches, past their card (the nearest box of CARD_SELECTOR
 * around them) on either side, as `tag.class "text" by N px in card`. What sits inside a box that scrolls (a table's wrapper, a JSON block, a
 * drawing) is left out: that box scrolls it, and the box itself must fit its own card. Empty answer: nothing overflows.
 */
export async function overflowingCards(page: Page): Promise<string[]> {
  // Browser-side code as text: the test programs are type-checked without the DOM library.
  return (await page.evaluate(`(() => {
    const CARDS = ${JSON.stringify(CARD_SELECTOR)};
    const scrolls = (el) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
    const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    const found = [];
    const main = document.querySelector('main#content');
    if (!main) return ['no main#content'];
    const m = main.getBoundingClientRect();
    if (m.right > window.innerWidth + 1) found.push('main#content reaches past the viewport by ' + Math.round(m.right - window.innerWidth) + ' px');
    for (const el of main.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest('.visually-hidden')) continue;
      const card = el.parentElement.closest(CARDS);
      if (!card || (card !== main && scrolls(card))) continue;
      let inScroller = false;
      for (let a = el.parentElement; a && a !== card; a = a.parentElement) if (scrolls(a)) inScroller = true;
      if (inScroller) continue;
      const c = card.getBoundingClientRect();
      // Text that overflows its own (non-scrolling) box counts too: the box may fit while its words do not.
      const right = scrolls(el) ? r.right : Math.max(r.right, r.left + el.scrollWidth);
      const past = Math.max(right - c.right, c.left - r.left);
      if (past > 1) found.push(name(el) + ' "' + (el.textContent || '').trim().slice(0, 40) + '" by ' + Math.round(past) + ' px in ' + name(card));
    }
    return found.slice(0, 10);
  })()`)) as string[];
}
