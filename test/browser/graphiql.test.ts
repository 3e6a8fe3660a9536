/**
 * GraphiQL in headless Chromium against the real server on a port, as a developer uses it: a clean
 * first screen with the docs loaded (no key yet), the key pasted into the Headers pane, a query's
 * result on the page, a subscription that shows an event triggered through REST, and a refused key
 * shown as an error rather than a spinner. Screenshots go to test-results/graphiql-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { browserAvailable, openBrowser, type BrowserSession } from "./browser.js";

/** Replaces the whole text of the Monaco editor inside `section` (no auto-closed brackets: inserted, not typed). */
async function setEditor(page: Page, section: string, text: string) {
  await page.locator(`${section} .graphiql-editor:not(.hidden) .view-lines`).first().click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

/** The result pane's text, spaces normalised (Monaco renders non-breaking spaces). */
const resultText = (page: Page) =>
  page
    .locator(".result-window .view-lines")
    .innerText()
    .then((t) => t.replace(/\u00a0/g, " "));

async function waitForResult(page: Page, pattern: RegExp, timeout = 20_000) {
  const until = Date.now() + timeout;
  let text = "";
  while (Date.now() < until) {
    text = await resultText(page);
    if (pattern.test(text)) return text;
    await page.waitForTimeout(200);
  }
  throw new Error(`the result pane never matched ${pattern}; it shows:\n${text}`);
}

describe.runIf(browserAvailable())("GraphiQL in Chromium", () => {
  let t: TestApp;
  let session: BrowserSession;
  let base: string;
  let key: string;
  let userId: string;

  beforeAll(async () => {
    t = await startTestApp();
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
    key = (await t.createClient("Browser", ["users:read", "users:write"])).key;
    const created = await t.rest("POST", "/v2/users", { key, body: { first_name: "Grace", last_name: "Browser", email: "grace@example.com" } });
    expect(created.status).toBe(201);
    userId = created.body.user_id;
    session = await openBrowser();
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    await t?.stop();
  });

  it("opens on a clean first screen: styled, no errors, the schema's docs loaded without a key", async () => {
    const { page } = session;
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${base}/graphql`, { timeout: 60_000 });
    await page.locator(".graphiql-execute-button").waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "Show Documentation Explorer" }).click();
    await page.getByText("Root Types").waitFor({ timeout: 30_000 });
    await session.screenshot("graphiql-1-first-screen");
    expect(
      await page
        .locator(".graphiql-container")
        .first()
        .evaluate((el) => getComputedStyle(el).display),
    ).toBe("flex"); // styled, not bare HTML
    expect(await page.locator("body").innerText()).not.toMatch(/error fetching schema|401|unauthenticated/i);
    expect(errors).toEqual([]);
    await page.getByRole("button", { name: "Hide Documentation Explorer" }).click();
  }, 120_000);

  it("runs a query with the key set in the Headers pane and shows the result", async () => {
    const { page } = session;
    await setEditor(page, 'section[aria-label="Headers"]', JSON.stringify({ Authorization: `Bearer ${key}` }));
    await setEditor(page, 'section[aria-label="Operation Editor"]', "{ users(first: 5) { totalCount edges { node { id email status } } } }");
    await page.locator(".graphiql-execute-button").click();
    const text = await waitForResult(page, /grace@example\.com/);
    expect(text).toContain('"totalCount": 1');
    await session.screenshot("graphiql-2-query");
  }, 60_000);

  it("delivers a subscription event triggered through REST", async () => {
    const { page } = session;
    await setEditor(page, 'section[aria-label="Operation Editor"]', `subscription { userStatusChanged(userId: "${userId}") { id status } }`);
    await page.locator(".graphiql-execute-button").click();
    // the subscription is open once the server holds it; then change the status through REST
    await page.waitForTimeout(1500);
    const put = await t.rest("PUT", `/v2/users/${userId}`, { key, body: { status: "CLOSED" } });
    expect(put.status).toBe(200);
    const text = await waitForResult(page, /"status": "CLOSED"/);
    expect(text).toContain(userId);
    await session.screenshot("graphiql-3-subscription");
    await page.locator(".graphiql-execute-button").click(); // stop the subscription
  }, 60_000);

  it("shows a refused key as an error on the page", async () => {
    const { page } = session;
    await setEditor(page, 'section[aria-label="Headers"]', JSON.stringify({ Authorization: "Bearer ogk_test_not_a_key" }));
    await setEditor(page, 'section[aria-label="Operation Editor"]', `subscription { userStatusChanged(userId: "${userId}") { id status } }`);
    await page.locator(".graphiql-execute-button").click();
    const text = await waitForResult(page, /not valid or has been revoked/);
    expect(text).toContain("UNAUTHENTICATED");
    await session.screenshot("graphiql-4-refused-key");
  }, 60_000);

  it("ran all of it within the page's Content-Security-Policy", () => {
    expect(session.violations).toEqual([]);
  });
});
