/**
 * Re-screening on a list update, as an operator runs it: `cli watchlist import FILE` (a child process;
 * on the embedded database it hands the command to the running server, on PostgreSQL it writes
 * itself), the server's job queues LIST_UPDATE screenings for whoever the change could concern, and
 * their results go out as webhooks.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { within } from "../../../test/helpers/eventually.js";
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { PUBLIC_EVENT_TYPES } from "../../kernel/event-types.js";
import { SHIPPED_WATCHLIST } from "./screening/watchlist.js";

const root = path.resolve(import.meta.dirname, "../../..");
/** review.opened, once reviews publish it: the alert a changed or net-new hit raises */
const reviewsPublished = (PUBLIC_EVENT_TYPES as readonly string[]).includes("review.opened");

/**
 * The update: SIKIRICA, Dusko (ent_num 7789) born 23 Mar 1984 instead of 1964, and then, a month
 * later, SAMIU, Izair (7784) delisted. Who could match the first by name (the matcher's retrieval) is
 * re-screened, whatever their result was; whoever a screening named the second for is cleared.
 */
const PEOPLE = {
  // could match 7789
  alert: { first_name: "Dusko", last_name: "Sakirica", date_of_birth: "1984-03-23" }, // clear before, a hit now (the date agrees)
  exact: { first_name: "Dusko", last_name: "Sikirica", date_of_birth: "1984-03-23" }, // a possible match before, a strong one now
  reordered: { first_name: "Sikirica", last_name: "Dusko" },
  hyphenated: { first_name: "Duska", middle_name: "Maria", last_name: "Sikirić-Horvat" }, // retrieved, never a hit
  rejectedWithHit: { first_name: "Dusko", last_name: "Sikirica" }, // REJECTED, their screening named 7789
  // could not
  unrelated: { first_name: "Mei", last_name: "Lim" },
  sameGivenName: { first_name: "Dusko", last_name: "Popovic" },
  likeSounding: { first_name: "Dule", last_name: "Sikora" },
  shortened: { first_name: "Dusan", last_name: "Sikiric" },
  closed: { first_name: "Dusko", last_name: "Sikirica", date_of_birth: "1984-03-23" }, // CLOSED: no relationship left
  rejectedByName: { first_name: "Duska", middle_name: "Maria", last_name: "Sikirić-Horvat" }, // REJECTED, no hit on 7789
  // a hit on 7784, delisted by the second update
  delisted: { first_name: "Izair", last_name: "Samiu" },
  rejectedDelisted: { first_name: "Izair", last_name: "Samiu" }, // REJECTED: the hit may have been why
};
type Person = keyof typeof PEOPLE;
const FIRST_UPDATE: Person[] = ["alert", "exact", "reordered", "hyphenated", "rejectedWithHit"];
const SECOND_UPDATE: Person[] = ["delisted", "rejectedDelisted"];
const STATUS: Partial<Record<Person, "REJECTED" | "CLOSED">> = {
  rejectedWithHit: "REJECTED",
  closed: "CLOSED",
  rejectedByName: "REJECTED",
  rejectedDelisted: "REJECTED",
};

describe.each(backends)("re-screening on a list update on %s", (backend) => {
  let t: TestApp;
  let dataDir: string;
  let receiver: WebhookReceiver;
  let key: string;
  const ids = {} as Record<Person, string>;
  const nameOf = (userId: string) => Object.entries(ids).find(([, id]) => id === userId)?.[0];

  /** `cli watchlist import FILE` as an operator runs it beside the service */
  const importList = async (file: string) => {
    const env =
      backend === "pglite"
        ? { DATABASE_URL: "" }
        : { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: t.schemaName!, ENCRYPTION_KEY: randomBytes(32).toString("hex") };
    const { stdout } = await promisify(execFile)("node", ["--import", "tsx", "src/cli/main.ts", "watchlist", "import", file], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: "", NODE_ENV: "test", ...env },
    });
    return JSON.parse(stdout);
  };
  const listUpdateRuns = (since: Date) =>
    t.db.checkRun.findMany({ where: { trigger: "LIST_UPDATE", createdAt: { gte: since } }, select: { userId: true, type: true, status: true } });
  const rescreened = (importId: string) =>
    within(
      "the re-screen queued",
      () => t.db.watchlistImport.findUniqueOrThrow({ where: { id: importId } }),
      (row) => row.rescreenedAt !== null,
      60_000,
    );
  const metric = async (name: string) => {
    const text = await (await t.app.fetch("/metrics")).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name}{`));
    return line === undefined ? null : { version: /list_version="([^"]+)"/.exec(line)![1], value: Number(line.split(" ").at(-1)) };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "og-rescreen-"));
    receiver = await startWebhookReceiver();
    t = await startTestApp(backend, {
      DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE: "1",
      PERIODIC_CHECKS_CRON: "off",
      ...(backend === "pglite" ? { DATABASE_URL: "" } : {}),
    });
    await t.app.start(0); // on the embedded database, the control socket the CLI hands its command to
    key = (await t.createClient("Screened")).key;
    const hook = await t.rest("POST", "/v2/webhooks", {
      key,
      body: { url: receiver.url("/hook"), event_types: ["check.sanctions_screening.updated", ...(reviewsPublished ? ["review.opened"] : [])] },
    });
    expect(hook.status).toBe(201);
    for (const [name, person] of Object.entries(PEOPLE) as [Person, (typeof PEOPLE)[Person]][]) {
      const res = await t.rest("POST", "/v2/users", { key, body: { ...person, email: `${name}@example.com`, country_of_residence: "SG" } });
      expect(res.status, name).toBe(201);
      ids[name] = res.body.user_id;
    }
    await t.checksSettled();
    for (const [name, status] of Object.entries(STATUS)) await t.db.user.update({ where: { id: ids[name as Person] }, data: { status } });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("an import with one changed entry re-screens only the users who could match it, and its alert arrives as a webhook", async () => {
    const shipped = await readFile(SHIPPED_WATCHLIST, "utf8");
    const changed = shipped.replace(/(\r\n7789,"SIKIRICA, Dusko"[^\r]*?)DOB 23 Mar 1964/, "$1DOB 23 Mar 1984");
    expect(changed).not.toBe(shipped);
    const file = path.join(dataDir, "sdn-2024-06-01.csv");
    await writeFile(file, changed);
    const before = new Date();
    const out = await importList(file);
    expect(out).toMatchObject({ import_id: expect.any(String), version: expect.stringMatching(/^ofac-sdn-2024-06-01\+/), added: 0, changed: 1, removed: 0 });
    expect(out.previous).toMatch(/^ofac-sdn-2024-05-03\+210ca6b4a818$/);

    const row = await rescreened(out.import_id);
    expect(row).toMatchObject({ listVersion: out.version, previous: out.previous, added: 0, changed: 1, removed: 0, rescreened: FIRST_UPDATE.length });
    const runs = await listUpdateRuns(before);
    expect(runs.map((r) => nameOf(r.userId)).sort()).toEqual([...FIRST_UPDATE].sort());
    expect(new Set(runs.map((r) => r.type))).toEqual(new Set(["SANCTIONS_SCREENING"]));

    // the alert: a screening against the new list that names 7789 for someone it did not name before
    const alerted = (d: { body: string }) => {
      const event = JSON.parse(d.body);
      return event.type === "check.sanctions_screening.updated" && event.data.user_id === ids.alert && event.data.check.trigger === "LIST_UPDATE";
    };
    await receiver.until("the LIST_UPDATE screening's webhook", () => receiver.at("/hook").some(alerted), 60_000);
    const check = JSON.parse(receiver.at("/hook").find(alerted)!.body).data.check;
    expect(check).toMatchObject({ status: "REJECTED", result: { provider: out.version, matches: [{ entryId: "7789", listVersion: out.version }] } });
    if (reviewsPublished) {
      const opened = (d: { body: string }) => {
        const event = JSON.parse(d.body);
        return event.type === "review.opened" && event.data.user_id === ids.alert;
      };
      await receiver.until("the review it opened", () => receiver.at("/hook").some(opened), 30_000);
    }
    await t.checksSettled(60_000);
    const results = await t.db.checkRun.findMany({ where: { trigger: "LIST_UPDATE" }, select: { userId: true, status: true } });
    expect(Object.fromEntries(results.map((r) => [nameOf(r.userId), r.status]))).toEqual({
      alert: "REJECTED",
      exact: "REJECTED",
      reordered: "CONSIDER",
      hyphenated: "CLEAR",
      rejectedWithHit: "CONSIDER", // no date of birth: the name alone stays a possible match
    });

    expect(await metric("watchlist_import_rescreened_users")).toEqual({ version: out.version, value: FIRST_UPDATE.length });
    expect((await metric("watchlist_import_rescreen_delay_seconds"))?.value).toBeGreaterThanOrEqual(0);
    // the review opened from the alert sets last_alert_at (src/domains/reviews); without reviews, as they would
    const alertAt = (await t.db.watchlistImport.findUniqueOrThrow({ where: { id: out.import_id } })).lastAlertAt;
    if (!alertAt) await t.db.watchlistImport.update({ where: { id: out.import_id }, data: { lastAlertAt: new Date(row.importedAt.getTime() + 1500) } });
    const delay = (await metric("watchlist_import_last_alert_delay_seconds"))?.value;
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThan(60);
  }, 180_000);

  it("an import that delists an entry re-screens whoever a screening named it for, a rejected user too, and clears them", async () => {
    const current = await readFile(path.join(dataDir, "sanctions", "ofac-sdn-2024-06-01.csv"), "utf8");
    const delisted = current.replace(/\r\n7784,"SAMIU, Izair"[^\r]*\r\n/, "\r\n");
    expect(delisted.length).toBeLessThan(current.length);
    const file = path.join(dataDir, "sdn-2024-07-01.csv");
    await writeFile(file, delisted);
    const before = new Date();
    const out = await importList(file);
    expect(out).toMatchObject({ added: 0, changed: 0, removed: 1 });
    expect(await rescreened(out.import_id)).toMatchObject({ rescreened: SECOND_UPDATE.length });
    await t.checksSettled(60_000);
    const runs = await listUpdateRuns(before);
    expect(Object.fromEntries(runs.map((r) => [nameOf(r.userId), r.status]))).toEqual({ delisted: "CLEAR", rejectedDelisted: "CLEAR" });
    // a run reinstates nobody: the rejected user waits for a person, who now sees a clear screening
    expect((await t.db.user.findUniqueOrThrow({ where: { id: ids.rejectedDelisted } })).status).toBe("REJECTED");
    expect(await metric("watchlist_import_rescreened_users")).toEqual({ version: out.version, value: SECOND_UPDATE.length });
    expect(await metric("watchlist_import_last_alert_delay_seconds")).toBeNull(); // nothing to alert on: no sample
  }, 180_000);
});
