/**
 * The REST reference at /docs in headless Chromium: Swagger UI, served from the installed package,
 * renders /openapi.json with its styles, and a reader finds the v2 users routes and their body.
 * The screenshot goes to test-results/docs.png.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { browserAvailable, openBrowser, type BrowserSession } from "./browser.js";

describe.runIf(browserAvailable())("/docs in Chromium", () => {
  let t: TestApp;
  let session: BrowserSession;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = `http://127.0.0.1:${await t.app.start(0, "127.0.0.1")}`;
    session = await openBrowser();
  }, 60_000);
  afterAll(async () => {
    await session?.close();
    await t?.stop();
  });

  it("renders every route, styled, and opens the v2 users routes", async () => {
    const { page } = session;
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    const logged: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") logged.push(message.text());
    });
    await page.goto(`${base}/docs`);
    const createUser = page.locator(".opblock-post", { hasText: "/v2/users" }).first();
    await createUser.waitFor({ timeout: 30_000 });
    expect(await page.locator(".opblock").count()).toBeGreaterThanOrEqual(20);
    for (const path of ["/v2/users/{user_id}", "/v2/users/authentications/documents", "/payouts/remittances/utilities/currencies"])
      expect(await page.locator(".opblock-summary-path", { hasText: path }).count(), path).toBeGreaterThan(0);
    // styled: Swagger UI's stylesheet colours a POST block, the default would be transparent
    expect(await createUser.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgba(0, 0, 0, 0)");
    await createUser.locator(".opblock-summary").click();
    await page.locator(".opblock-body", { hasText: "first_name" }).first().waitFor({ timeout: 10_000 });
    await session.screenshot("docs");
    expect(failed).toEqual([]);
    expect(logged).toEqual([]); // the icon the browser asks for is answered too (204), not 401
    expect(session.violations).toEqual([]); // its Content-Security-Policy allows all it loads
  }, 90_000);
});
