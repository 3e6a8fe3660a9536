/**
 * The compliance console (/console) in headless Chromium against the real server on a port, as two
 * analysts work it: Ada logs in with her reviewer key (a refused key first), opens the queue,
 * dismisses a false positive, rejects a true match, sees a new review arrive live through the
 * subscription; Ben, in a browser of his own, approves her rejection (hers alone cannot). axe-core
 * finds no serious or critical accessibility violation on any screen; nothing is loaded from
 * anywhere but the server and nothing breaks the page's Content-Security-Policy.
 * Screenshots: test-results/console-*.png.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { AxeResults } from "axe-core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestApp, type TestApp } from "../helpers/app.js";
import { within } from "../helpers/eventually.js";
import { browserAvailable, openBrowser, type BrowserSession } from "./browser.js";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** where the page fetches axe from: the server's own origin, so the page's policy ('self') allows it; answered by the test from node_modules */
const AXE_URL = "/console/assets/axe.min.js";

/** Spelling variants of OFAC SDN entry 10481 (SOLEIMANI, Qasem; born 11 Mar 1957): each screening is CONSIDER and opens a review. */
const NAMESAKE = { first_name: "Qassem", last_name: "Soleymani", date_of_birth: "1980-01-01" }; // born in another year: a false positive
const LISTED = { first_name: "Qasem", last_name: "Soleymany", date_of_birth: "1957-03-11" }; // the listed date of birth: the listed person
const LATECOMER = { first_name: "Qasim", last_name: "Soleimani", date_of_birth: "1957-03-11" };

/** The whole page, not only the viewport (a review is longer than the screen): test-results/<name>.png. */
const fullPage = (page: Page, name: string) => page.screenshot({ path: path.resolve(import.meta.dirname, `../../test-results/${name}.png`), fullPage: true });

/** axe-core's findings on the page as it is now, serious and critical ones only. */
async function seriousViolations(page: Page, screen: string) {
  await page.addScriptTag({ url: AXE_URL });
  const results = (await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: Document, options: object) => Promise<unknown> } }).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
    }),
  )) as AxeResults;
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${screen}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe.runIf(browserAvailable())("the compliance console in Chromium", () => {
  let t: TestApp;
  let base: string;
  let clientKey: string;
  let ada: { key: string; id: string };
  let ben: { key: string; id: string };
  let adaSession: BrowserSession;
  let benSession: BrowserSession;
  const accessibility: string[] = [];
  const foreign: string[] = [];
  const pageErrors: string[] = [];

  const reviewer = async (clientId: string, name: string) => {
    const res = await t.rest("POST", `/admin/clients/${clientId}/reviewers`, { key: ADMIN_KEY, body: { name, email: `${name.toLowerCase()}@example.com` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { key: res.body.api_key as string, id: res.body.reviewer_id as string };
  };
  const signUp = async (names: Record<string, string>) => {
    const res = await t.rest("POST", "/v2/users", { key: clientKey, body: { ...names, email: `${randomUUID()}@example.com` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.user_id as string;
  };
  const reviewsNow = async () => ((await t.rest("GET", "/v2/reviews?records_per_page=100", { key: ada.key })).body?.data ?? []) as any[];
  const reviewOf = async (userId: string) =>
    (await within(`a review of ${userId}`, reviewsNow, (reviews) => reviews.some((r) => r.user_id === userId), 30_000, 200)).find((r) => r.user_id === userId);

  /** A fresh browser for one analyst: axe served from node_modules, anything from another origin recorded. */
  async function analystBrowser() {
    const session = await openBrowser();
    await session.page.route(`${base}${AXE_URL}`, (route) => route.fulfill({ contentType: "text/javascript", body: AXE_SOURCE }));
    session.page.on("request", (request) => {
      if (!request.url().startsWith(base)) foreign.push(request.url());
    });
    session.page.on("pageerror", (error) => pageErrors.push(error.message));
    return session;
  }

  async function logIn(page: Page, key: string, name: string) {
    await page.goto(`${base}/console`);
    await page.getByLabel("Reviewer key").fill(key);
    await page.getByRole("button", { name: "Open the queue" }).click();
    await page.getByText(`Signed in as ${name}`).waitFor({ timeout: 20_000 });
  }

  /** the queue's line for a person, as a button */
  const reviewButton = (page: Page, name: string) => page.locator(".review-item", { hasText: name });

  beforeAll(async () => {
    execFileSync(process.execPath, [path.resolve(import.meta.dirname, "../../scripts/build-console.mjs")], { stdio: "inherit" });
    t = await startTestApp();
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
    const client = await t.createClient("Console");
    clientKey = client.key;
    ada = await reviewer(client.clientId, "Ada");
    ben = await reviewer(client.clientId, "Ben");
    await reviewOf(await signUp(NAMESAKE));
    await reviewOf(await signUp(LISTED));
    adaSession = await analystBrowser();
  }, 120_000);
  afterAll(async () => {
    await adaSession?.close();
    await benSession?.close();
    await t?.stop();
  });

  it("refuses keys that are not a reviewer's, then logs Ada in with hers (kept for the tab only)", async () => {
    const { page } = adaSession;
    await page.goto(`${base}/console`);
    await page.getByLabel("Reviewer key").waitFor();
    accessibility.push(...(await seriousViolations(page, "login")));
    // the client's own key is no reviewer's, and a made-up one no key at all: each is refused with the server's code
    for (const [key, code] of [
      [clientKey, "FORBIDDEN"],
      ["ogk_sandbox_not_a_key", "UNAUTHENTICATED"],
    ]) {
      await page.getByLabel("Reviewer key").fill(key!);
      await page.getByRole("button", { name: "Open the queue" }).click();
      await page.getByRole("alert").filter({ hasText: code! }).waitFor({ timeout: 20_000 });
      expect(await page.getByLabel("Reviewer key").isVisible()).toBe(true);
    }
    await adaSession.screenshot("console-1-refused-key");

    await page.getByLabel("Reviewer key").fill(ada.key);
    await page.getByRole("button", { name: "Open the queue" }).click();
    await page.getByText("Signed in as Ada").waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => Object.values(sessionStorage))).toEqual([ada.key]);
    expect(await page.evaluate(() => Object.values(localStorage))).toEqual([]);
    // a reload in the same tab keeps her in
    await page.reload();
    await page.getByText("Signed in as Ada").waitFor({ timeout: 20_000 });
  }, 60_000);

  it("opens the queue: counts and ages, both reviews, live updates on", async () => {
    const { page } = adaSession;
    await page.getByText("Live updates on").waitFor({ timeout: 20_000 });
    await reviewButton(page, "Qassem Soleymani").waitFor();
    await reviewButton(page, "Qasem Soleymany").waitFor();
    const summary = page.getByRole("region", { name: "The queue at a glance" });
    expect(await summary.innerText()).toMatch(/Open\s*2/);
    expect(await summary.innerText()).toMatch(/Oldest open\s*(just now|\d+ min)/);
    expect(await page.getByRole("tab", { name: /To decide/ }).getAttribute("aria-selected")).toBe("true");
    await adaSession.screenshot("console-2-queue");
    accessibility.push(...(await seriousViolations(page, "queue")));
  }, 60_000);

  it("dismisses a false positive: the screened data beside the entry, the explanation, the rules, the decision", async () => {
    const { page } = adaSession;
    await reviewButton(page, "Qassem Soleymani").click();
    const review = page.locator("article.review");
    await review.getByRole("heading", { name: "Qassem Soleymani" }).waitFor();
    // the analyst is taken to the review (focus on its heading)
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("review-title");
    const hit = review.locator("article.hit").first();
    expect(await hit.getByRole("heading", { level: 3 }).innerText()).toBe("Hit 1: SOLEIMANI, Qasem");
    const dateRow = hit.getByRole("row", { name: /Date of birth/ });
    expect(await dateRow.innerText()).toMatch(/1980-01-01\s+11 Mar 1957\s+Differs/);
    expect(await hit.locator("mark.word").count()).toBeGreaterThan(0); // the paired words highlighted
    expect(await hit.innerText()).toContain("pairs with");
    await fullPage(page, "console-3-review");
    accessibility.push(...(await seriousViolations(page, "review")));

    // the rules before the server: CLEAR needs every hit a false positive
    await review.getByRole("radio", { name: "Clear" }).check();
    await review.getByRole("button", { name: "Record decision" }).click();
    expect(await review.getByRole("alert").innerText()).toContain("mark every hit as a false positive");

    await hit.getByRole("radio", { name: "False positive" }).check();
    await review.getByLabel("Reason").selectOption({ label: "The date of birth differs from every listed one" });
    await review.getByLabel("Note (optional)").fill("Born 1980; the listed person in 1957.");
    await review.getByRole("button", { name: "Record decision" }).click();
    const done = review.locator(".notice--success");
    await done.waitFor({ timeout: 20_000 });
    expect(await done.innerText()).toContain("closed");
    await review.getByText("Decided: False positive").waitFor();
    expect(await review.locator(".badge", { hasText: "Closed" }).count()).toBe(1);
    // it leaves the list of reviews to decide
    await within(
      "the cleared review leaves the queue",
      () => reviewButton(page, "Qassem Soleymani").count(),
      (n) => n === 0,
    );
  }, 60_000);

  it("rejects a true match: it waits for a second reviewer, and Ada cannot approve her own", async () => {
    const { page } = adaSession;
    await reviewButton(page, "Qasem Soleymany").click();
    const review = page.locator("article.review");
    await review.getByRole("heading", { name: "Qasem Soleymany" }).waitFor();
    const hit = review.locator("article.hit").first();
    expect(await hit.getByRole("row", { name: /Date of birth/ }).innerText()).toContain("Same date");
    await hit.getByRole("radio", { name: "True match" }).check();
    await review.getByRole("radio", { name: "Reject" }).check();
    await review.getByLabel("Reason").selectOption({ label: "The customer is the listed person" });
    await review.getByRole("button", { name: "Record decision" }).click();
    await review.getByText("It takes effect once a second reviewer approves it").waitFor({ timeout: 20_000 });

    // the tabs by keyboard: the arrow key moves to the next one and selects it
    await page.getByRole("tab", { name: /To decide/ }).focus();
    await page.keyboard.press("ArrowRight");
    const approvals = page.getByRole("tab", { name: /Awaiting approval/ });
    expect(await approvals.getAttribute("aria-selected")).toBe("true");
    expect(await approvals.evaluate((tab) => tab === document.activeElement)).toBe(true);
    await reviewButton(page, "Qasem Soleymany").click();
    await page.locator("article.review").getByText("a different reviewer must approve it").waitFor();
    expect(await page.getByRole("button", { name: /Approve/ }).count()).toBe(0);
    await adaSession.screenshot("console-4-awaiting-approval");
    accessibility.push(...(await seriousViolations(page, "awaiting approval (decider)")));
  }, 60_000);

  it("shows a new review as it arrives, through the subscription, without a reload", async () => {
    const { page } = adaSession;
    await page.getByRole("tab", { name: /To decide/ }).click();
    await page.getByText("No reviews here.").waitFor();
    await signUp(LATECOMER);
    const arrived = reviewButton(page, "Qasim Soleimani");
    await arrived.waitFor({ timeout: 30_000 });
    expect(await arrived.innerText()).toContain("New");
    await adaSession.screenshot("console-5-live");
  }, 60_000);

  it("lets Ben, a second analyst, approve Ada's rejection", async () => {
    benSession = await analystBrowser();
    const { page } = benSession;
    await logIn(page, ben.key, "Ben");
    await page.getByRole("tab", { name: /Awaiting approval \(1\)/ }).click();
    await reviewButton(page, "Qasem Soleymany").click();
    const review = page.locator("article.review");
    await review.getByText("Decided by").waitFor();
    expect(await review.locator(".record").innerText()).toMatch(/Reject[\s\S]*The customer is the listed person[\s\S]*Ada/);
    await review.getByLabel("Approval note (optional)").fill("Agreed: same name and date of birth.");
    await fullPage(page, "console-6-approval");
    accessibility.push(...(await seriousViolations(page, "approval")));
    await review.getByRole("button", { name: "Approve the rejection" }).click();
    await review.locator(".notice--success").waitFor({ timeout: 20_000 });
    await review.getByText("Approved by").waitFor();
    const closed = (await reviewsNow()).filter((r) => r.status === "CLOSED");
    expect(closed.map((r) => [r.screened?.first_name, r.outcome, r.approved_by?.name ?? null]).sort()).toEqual(
      [
        ["Qasem", "REJECT", "Ben"],
        ["Qassem", "CLEAR", null],
      ].sort(),
    );
    // Ada's console hears of it: the approvals tab empties without a reload
    await within(
      "Ada's approvals tab empties",
      () => adaSession.page.getByRole("tab", { name: /Awaiting approval \(0\)/ }).count(),
      (n) => n === 1,
    );
  }, 60_000);

  it("shows a hit an upstream provider posted without the matcher's explanation: the entry, its names, no comparison of words", async () => {
    const userId = await signUp({ first_name: "Ana", last_name: "Cruz" });
    const runs = (await t.rest("GET", `/v2/users/${userId}/checks`, { key: clientKey })).body.data as any[];
    const screening = runs.find((r) => r.type === "SANCTIONS_SCREENING");
    const match = { entryId: "UP-1", name: "CRUZ, Ana Maria", entryNames: ["CRUZ, Ana Maria", "CRUZ, Ana"], score: 0.9, programs: ["UPSTREAM"] };
    const posted = await t.rest("POST", `/v2/checks/${screening.check_id}/result`, {
      key: ADMIN_KEY,
      body: { status: "CONSIDER", decided_by: "PROVIDER", matches: [match] },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const { page } = adaSession;
    await page.getByRole("tab", { name: /To decide/ }).click();
    await reviewButton(page, "Ana Cruz").click();
    const hit = page.locator("article.review article.hit").first();
    await hit.getByRole("heading", { name: "Hit 1: CRUZ, Ana Maria" }).waitFor({ timeout: 20_000 });
    expect(await hit.innerText()).toContain("no explanation");
    expect(await hit.getByRole("row", { name: /Also listed as/ }).innerText()).toContain("CRUZ, Ana");
    expect(await hit.getByRole("row", { name: /Date of birth/ }).innerText()).toContain("Not compared");
    await hit.getByRole("radio", { name: "False positive" }).waitFor();
    await fullPage(page, "console-7-upstream-hit");
    accessibility.push(...(await seriousViolations(page, "upstream hit")));
  }, 60_000);

  it("had no serious or critical accessibility violation, loaded nothing from elsewhere, and kept within its policy", () => {
    expect(accessibility).toEqual([]);
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(adaSession.violations).toEqual([]);
    expect(benSession.violations).toEqual([]);
  });
});
