/**
 * One headless Chromium set-up for every browser test (GraphiQL, /docs): Debian's `chromium`
 * driven by playwright-core (no browser download), a fresh profile per launch, screenshots under
 * test-results/ (git-ignored). Without chromium the tests are skipped with a message, except in
 * CI, where .ci/run installs it and a missing browser is a failure.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const RESULTS = path.resolve(import.meta.dirname, "../../test-results");

/** false (skip, with the reason printed) only outside CI when no chromium is installed. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing; .ci/run installs it (apt-get install -y chromium)`);
  console.warn(`browser tests skipped: ${CHROMIUM} is not installed (apt-get install -y chromium); CI runs them`);
  return false;
}

export type BrowserSession = {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** what the page's Content-Security-Policy refused, as Chromium reports it */
  violations: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
};

export async function openBrowser(): Promise<BrowserSession> {
  const profile = await mkdtemp(path.join(tmpdir(), "og-chromium-"));
  // a persistent context is the only way to give chromium its own --user-data-dir
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: FLAGS,
    headless: true,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await mkdir(RESULTS, { recursive: true });
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return {
    browser: context.browser()!,
    context,
    page,
    violations,
    async screenshot(name) {
      const file = path.join(RESULTS, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
