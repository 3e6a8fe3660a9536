import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { backends, multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";
import { sseSubscription } from "../../../test/helpers/sse.js";
import { OPERATOR } from "../../principal.js";
import { createTransact } from "../../platform/write.js";
import { eventually } from "../../../test/helpers/eventually.js";

const SUBSCRIPTION = `subscription($id: ID!) { userStatusChanged(userId: $id) { id status } }`;

/** Opens userStatusChanged over SSE. */
const firstSseEvent = (t: TestApp, key: string, variables: Record<string, unknown>) => sseSubscription(t, key, SUBSCRIPTION, variables);

describe("subscriptions", () => {
  let t: TestApp;
  let key: string;
  let other: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createClient()).key;
    other = (await t.createClient()).key;
  });
  afterAll(() => t?.stop());

  it("delivers userStatusChanged over SSE when the user's status moves", async () => {
    const user = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Sub", last_name: "Scriber", email: "sub@example.com" } })).body;
    const stream = await firstSseEvent(t, key, { id: user.user_id });
    const event = stream.next();
    await new Promise((r) => setTimeout(r, 50));
    await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { status: "CLOSED" } });
    expect((await event).data.userStatusChanged).toEqual({ id: user.user_id, status: "CLOSED" });
    await stream.close();
  });

  it("delivers userStatusChanged over graphql-ws on /graphql", async () => {
    const user = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Web", last_name: "Socket", email: "ws@example.com" } })).body;
    const port = await t.app.start(0, "127.0.0.1");
    const client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      retryAttempts: 0,
    });
    const connected = new Promise((resolve) => client.on("connected", resolve));
    const event = new Promise<any>((resolve, reject) =>
      client.subscribe({ query: SUBSCRIPTION, variables: { id: user.user_id } }, { next: resolve, error: reject, complete: () => {} }),
    );
    await connected; // the change must come after the subscription, however slow the socket is to open
    await new Promise((r) => setTimeout(r, 200));
    await t.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { status: "CLOSED" } });
    expect((await event).data.userStatusChanged).toEqual({ id: user.user_id, status: "CLOSED" });
    await client.dispose();
  });

  it("refuses to subscribe to another client's user with NOT_FOUND", async () => {
    const user = (await t.rest("POST", "/v2/users", { key, body: { first_name: "Priv", last_name: "Ate", email: "priv@example.com" } })).body;
    const stream = await firstSseEvent(t, other, { id: user.user_id });
    expect((await stream.next()).errors[0].extensions.code).toBe("NOT_FOUND");
  });
});

describe.runIf(multiInstance)("subscriptions across instances (Redis)", () => {
  let a: TestApp;
  let b: TestApp;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ a, b, stop } = await startTwoInstances());
  });
  afterAll(() => stop?.());

  it("a subscriber on one instance hears a change made on another", async () => {
    const { key } = await a.createClient();
    const user = (await a.rest("POST", "/v2/users", { key, body: { first_name: "Fan", last_name: "Out", email: "fan@example.com" } })).body;
    const stream = await firstSseEvent(b, key, { id: user.user_id });
    const event = stream.next();
    await new Promise((r) => setTimeout(r, 200));
    await a.rest("PUT", `/v2/users/${user.user_id}`, { key, body: { status: "CLOSED" } });
    expect((await event).data.userStatusChanged.status).toBe("CLOSED");
    await stream.close();
  });
});

describe.each(backends)("transactional outbox (%s)", (backend) => {
  let t: TestApp;
  let a: { clientId: string; key: string };
  let b: { clientId: string; key: string };
  beforeAll(async () => {
    t = await startTestApp(backend);
    a = await t.createClient("A");
    b = await t.createClient("B");
  });
  afterAll(() => t?.stop());

  const newUser = async (key: string, first = "Out") =>
    (
      await t.rest("POST", "/v2/users", {
        key,
        body: { first_name: first, last_name: "Box", email: `${first.toLowerCase()}${Math.random().toString(36).slice(2, 8)}@example.com` },
      })
    ).body;
  // this test's own events: the background checks of each new user raise check.* events of their own
  const rowsFor = (userId: string) => t.db.event.findMany({ where: { type: "user.status.updated", data: { path: ["userId"], equals: userId } } });
  const emitStatus = (transact: ReturnType<typeof createTransact>, clientId: string, userId: string, fail = false) =>
    transact({ principal: OPERATOR }, async ({ emit }) => {
      emit("user.status.updated", clientId, { userId, status: "CLOSED", previousStatus: "ACTIVE" });
      if (fail) throw new Error("the change fails");
    });

  it("writes the event row with the change, published once committed", async () => {
    const bossSchema = backend === "postgres" ? `"${t.schemaName}_boss"` : "pgboss";
    const boss = t.app.services.jobs.boss.getDb();
    const relayJobs = async (states: string, since = "-infinity", until = "infinity") =>
      (
        await boss.executeSql(
          `select count(*)::int as n from ${bossSchema}.job where name = 'events.relay' and state in (${states}) and created_on between $1::timestamptz and $2::timestamptz`,
          [since, until],
        )
      ).rows[0].n;
    const settled = () =>
      eventually(
        () => relayJobs("'created', 'retry', 'active'"),
        (n) => n === 0,
        25_000,
      );
    const dbNow = async () => (await boss.executeSql("select now()::text as now", [])).rows[0].now as string;
    const user = await newUser(a.key);
    // the new user's checks write (and relay) events of their own: let them finish first
    await eventually(
      () => t.db.checkRun.count({ where: { userId: user.user_id, status: { in: ["QUEUED", "RUNNING"] } } }),
      (n) => n === 0,
      25_000,
    );
    await settled();
    const from = await dbNow();
    await t.rest("PUT", `/v2/users/${user.user_id}`, { key: a.key, body: { status: "CLOSED" } });
    const to = await dbNow();
    const rows = await rowsFor(user.user_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ clientId: a.clientId, type: "user.status.updated", data: { userId: user.user_id, status: "CLOSED" } });
    expect(rows[0].publishedAt).toBeInstanceOf(Date);
    // published in-line, so the safety-net relay job the change enqueued is deleted, not run: a healthy
    // service runs no relay query. A job that was run instead stays as `completed` (pg-boss deletes
    // it after days); counted among the jobs made while the change was written, once nothing is due.
    await settled();
    expect(await relayJobs("'created', 'retry', 'active', 'completed', 'failed'", from, to)).toBe(0);
  }, 60_000);

  it("writes no event row when the change rolls back", async () => {
    const user = await newUser(a.key);
    await expect(emitStatus(t.app.services.transact, a.clientId, user.user_id, true)).rejects.toThrow("the change fails");
    expect(await rowsFor(user.user_id)).toHaveLength(0);
  });

  it("an event committed by a writer that died before publishing reaches a subscriber through the relay", async () => {
    const user = await newUser(a.key);
    const stream = await firstSseEvent(t, a.key, { id: user.user_id });
    const event = stream.next();
    await new Promise((r) => setTimeout(r, 100));
    await emitStatus(createTransact(t.db), a.clientId, user.user_id); // committed; no relay, no relay job: as if the process died after commit
    const [row] = await rowsFor(user.user_id);
    expect(row.publishedAt).toBeNull();
    expect(await t.app.outbox.relayPending()).toBeGreaterThanOrEqual(1); // the relay, run again
    expect((await event).data.userStatusChanged.id).toBe(user.user_id);
    expect((await rowsFor(user.user_id))[0].publishedAt).toBeInstanceOf(Date);
    await stream.close();
  });

  it("claims an event no consumer writes for in one statement, and a public one with its webhooks in a transaction", async () => {
    const unrelayed = createTransact(t.db); // writes the rows and relays nothing
    const stamp = `${backend}-${Date.now()}`;
    await unrelayed({ principal: OPERATOR }, async ({ emit }) => {
      emit("card.status.updated", a.clientId, { cardId: stamp, walletId: stamp, status: "ACTIVE", previousStatus: "REQUESTED" });
      emit("user.status.updated", a.clientId, { userId: stamp, status: "CLOSED", previousStatus: "ACTIVE" });
    });
    const [card, user] = await Promise.all(
      ["cardId", "userId"].map((field) =>
        t.db.event.findFirstOrThrow({ where: { data: { path: [field], equals: stamp } }, select: { id: true, type: true, clientId: true } }),
      ),
    );
    const claimOf = async (event: typeof card) => (await t.app.database.countQueries(() => t.app.outbox.relay([event!]))).queries;
    const privately = await claimOf(card);
    // the claim alone: no transaction (Prisma's log shows a transaction by its COMMIT)
    expect(privately).toHaveLength(1);
    expect(privately[0]).toMatch(/^UPDATE .*"events"/);
    const publicly = await claimOf(user);
    expect(publicly.some((q) => /COMMIT/.test(q))).toBe(true);
    expect(publicly.some((q) => /webhook_endpoints/.test(q))).toBe(true);
    for (const { id } of [card, user]) expect((await t.db.event.findUniqueOrThrow({ where: { id: id! } })).publishedAt).toBeInstanceOf(Date);
  });

  it("the relay job enqueued with the change publishes what its writer never did", async () => {
    const user = await newUser(a.key);
    const stream = await firstSseEvent(t, a.key, { id: user.user_id });
    const event = stream.next();
    await new Promise((r) => setTimeout(r, 100));
    await emitStatus(createTransact(t.db, { jobs: t.app.services.jobs }), a.clientId, user.user_id); // job committed with the event, nothing relayed here
    expect((await event).data.userStatusChanged.id).toBe(user.user_id);
    await stream.close();
  }, 30_000);

  it.runIf(backend === "postgres")("never lets a cursor pass an event whose transaction commits later", async () => {
    const user = await newUser(a.key, "Late");
    const status = (status: string) => ({
      type: "user.status.updated",
      clientId: a.clientId,
      data: { userId: user.user_id, status, previousStatus: "PENDING" },
    });
    const listed = async () =>
      ((await t.rest("GET", "/v2/events?types=user.status.updated&records_per_page=100", { key: a.key })).body.data as any[])
        .filter((e) => e.data.user_id === user.user_id)
        .map((e) => e.data.status);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // the slow transaction writes its event first (lower seq), the fast one commits first
    const slow = t.db.$transaction(
      async (tx) => {
        await tx.event.create({ data: status("SLOW") });
        await gate;
      },
      { timeout: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 200));
    await t.db.event.create({ data: status("FAST") });
    expect(await listed()).toEqual([]); // FAST is committed, but SLOW's transaction is older and still open
    release();
    await slow;
    expect(await eventually(listed, (l) => l.length === 2)).toEqual(["SLOW", "FAST"]);
  });

  it("catches up over REST and GraphQL, each client seeing only its own events", async () => {
    const ua = await newUser(a.key, "Alpha");
    const ub = await newUser(b.key, "Beta");
    const first = (await t.rest("GET", "/v2/events?types=user.status.updated&records_per_page=100", { key: a.key })).body.data as { id: string }[];
    const mark = first.at(-1)?.id;
    await t.rest("PUT", `/v2/users/${ua.user_id}`, { key: a.key, body: { status: "CLOSED" } });
    await t.rest("PUT", `/v2/users/${ub.user_id}`, { key: b.key, body: { status: "CLOSED" } });
    // an older transaction still open anywhere on the server holds the list back a moment: poll
    const res = await eventually(
      () => t.rest("GET", `/v2/events?${mark ? `after=${mark}&` : ""}types=user.status.updated&records_per_page=100`, { key: a.key }),
      (r) => r.body.data.some((e: any) => e.data.user_id === ua.user_id),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.filter((e: any) => e.data.user_id === ua.user_id)).toEqual([
      {
        id: expect.any(String),
        type: "user.status.updated",
        created_at: expect.any(String),
        data: { user_id: ua.user_id, status: "CLOSED", previous_status: "PENDING", user: expect.objectContaining({ user_id: ua.user_id, status: "CLOSED" }) },
      },
    ]);
    expect(res.body.data.map((e: any) => e.data.user_id)).not.toContain(ub.user_id);
    expect(res.body.pagination.total_records).toBe(res.body.data.length);
    const ours = res.body.data.find((e: any) => e.data.user_id === ua.user_id);
    const stored = await t.db.event.findUniqueOrThrow({ where: { id: ours.id } });
    expect(ours.created_at).toBe(stored.createdAt.toISOString()); // the same instant whatever TZ the server runs in
    const mine = (
      await eventually(
        () => t.gql(b.key, `{ events(types: ["user.status.updated"], first: 100) { totalCount edges { cursor node { id type data } } } }`),
        (r) => r.body.data.events.edges.some((e: any) => e.node.data.user_id === ub.user_id),
      )
    ).body.data.events;
    expect(mine.edges.map((e: any) => e.node.data.user_id)).not.toContain(ua.user_id);
    const lastOfB = mine.edges.at(-1).cursor;
    expect(
      (await t.gql(b.key, `query($after: String) { events(after: $after, types: ["user.status.updated"]) { totalCount } }`, { after: lastOfB })).body.data
        .events.totalCount,
    ).toBe(0);
    // another client's event id is no position in this client's list
    const foreign = (await t.gql(a.key, `query($after: String) { events(after: $after) { totalCount } }`, { after: lastOfB })).body;
    expect(foreign.errors[0].extensions.code).toBe("VALIDATION_FAILED");
  });
});
