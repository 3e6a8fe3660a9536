/**
 * Class 5: 50 graphql-ws sockets of one key, each subscribing 100 times to a user's check runs,
 * then one event. Subscriptions past the caps per key and per socket are refused with a coded
 * error, the key holds no more than its cap, and the event reaches those it holds without taking
 * the process down. And a key revoked by the operator loses its open subscription within 2 s.
 */
import { describe, expect, it } from "vitest";
import { within } from "../helpers/eventually.js";
import { accepted, bearer, byCode, GqlSocket, pool } from "./helpers/attacks.js";
import { sleep } from "./helpers/process.js";
import { useService } from "./helpers/service.js";

// the per-minute budget off: the refusals here are the subscription caps' (ws-rate-limit.test.ts has the budget)
const service = useService({ RATE_LIMIT_PER_MINUTE: "0" });

const CHECK_UPDATED = "subscription($userId: ID!) { checkUpdated(userId: $userId) { id type status } }";
/** the default cap on one key's subscriptions */
const PER_KEY_CAP = 50;

describe("subscriptions", () => {
  it("50 sockets × 100 checkUpdated of one key, then an event: refused past the caps (RATE_LIMITED/UNAVAILABLE), at most 50 held; alive", async () => {
    const s = await service();
    const userId = await s.createUser();
    // a socket refused at connect (a cap on sockets per key) is a refusal too
    const opened = await s.guard(
      "50 sockets",
      pool(50, 10, () => GqlSocket.open(s.base, bearer(s.demoKey)).catch((e: Error) => e.message)),
      60_000,
    );
    const sockets = opened.filter((o): o is GqlSocket => o instanceof GqlSocket);
    for (const socket of sockets) for (let i = 0; i < 100; i++) socket.subscribe(CHECK_UPDATED, { userId });
    // an accepted subscription gets no answer until an event: wait until the refusals stop coming
    let answered = -1;
    await s.guard(
      "the refusals",
      within(
        "refusals settle",
        async () => {
          const before = answered;
          await sleep(1500);
          answered = sockets.reduce((n, k) => n + k.tally().refusals.length + k.tally().ended, 0) + sockets.filter((k) => k.closed).length;
          return answered === before;
        },
        (settled) => settled,
        60_000,
        0,
      ),
      70_000,
    );
    const held = accepted(sockets);
    const refusals = byCode(sockets.flatMap((k) => k.tally().refusals));
    const closes = sockets.filter((k) => k.closed).map((k) => `${k.closed!.code} ${k.closed!.reason}`);

    const event = await s.call("POST", `/v2/users/${userId}/checks`, { body: { type: "SANCTIONS_SCREENING" } });
    expect(event.status, event.text.slice(0, 300)).toBe(202);
    const delivered = () => sockets.reduce((n, k) => n + [...k.ops.values()].filter((op) => op.nexts.some((m) => m.data)).length, 0);
    await s.guard(
      "the event",
      within("the event reaches a held subscription", delivered, (n) => n > 0 || s.exit() !== null, 30_000, 250),
      35_000,
    );
    await sleep(2000); // let every delivery of the event go out
    console.log(
      `subscriptions: ${sockets.length} sockets of 50 opened (refused: ${JSON.stringify(byCode(opened.filter((o) => typeof o === "string")))}); ${held} subscriptions held of ${sockets.length * 100}, refused ${JSON.stringify(refusals)}, sockets closed ${JSON.stringify(byCode(closes))}; the event reached ${delivered()}`,
    );
    for (const socket of sockets) socket.close();
    await s.alive();
    expect(held, "subscriptions held by one key").toBeLessThanOrEqual(PER_KEY_CAP);
    expect(
      Object.values(refusals).reduce((a, b) => a + b, 0),
      "subscriptions refused with an error message",
    ).toBeGreaterThan(0);
    expect(
      Object.keys(refusals).filter((code) => code !== "RATE_LIMITED" && code !== "UNAVAILABLE"),
      "refusal codes",
    ).toEqual([]);
    expect(delivered(), "subscriptions the event reached").toBeGreaterThan(0);
  });

  it("a key revoked by the operator: its open subscription ends within 2 s", async () => {
    const s = await service();
    const client = await s.call("POST", "/admin/clients", {
      key: s.adminKey,
      body: { name: "Revoked soon", mode: "SANDBOX", scopes: ["users:read", "users:write"] },
    });
    expect(client.status, client.text.slice(0, 300)).toBe(201);
    const key: string = client.body.api_key;
    const userId = await s.createUser({}, key);
    const socket = await s.guard("connect", GqlSocket.open(s.base, bearer(key)), 20_000);
    // an operation answered proves the socket is in use with this key
    const probe = socket.subscribe("query($id: ID!) { user(id: $id) { id } }", { id: userId });
    await s.guard(
      "a query on the socket",
      within("the query is answered", () => socket.ops.get(probe)!.completed, Boolean, 15_000, 50),
      20_000,
    );
    const subscription = socket.subscribe(CHECK_UPDATED, { userId });
    await sleep(300);
    const before = socket.ops.get(subscription)!;
    expect(before.completed || before.errors !== undefined, `the subscription ended before the revocation: ${JSON.stringify(before)}`).toBe(false);

    const revoked = await s.call("DELETE", `/admin/keys/${client.body.key_id}`, { key: s.adminKey });
    expect(revoked.status, revoked.text.slice(0, 300)).toBe(200);
    const revokedAt = Date.now();
    const ended = () => socket.closed !== null || socket.ops.get(subscription)!.completed || socket.ops.get(subscription)!.errors !== undefined;
    await within("the subscription ends after the revocation", ended, Boolean, 2000, 25).finally(() => socket.close());
    const op = socket.ops.get(subscription)!;
    console.log(
      `revoked key: subscription ended after ${Date.now() - revokedAt} ms: ${socket.closed ? `socket closed ${socket.closed.code} ${socket.closed.reason}` : JSON.stringify(op.errors ?? "complete")}`,
    );
    await s.alive();
  });
});
