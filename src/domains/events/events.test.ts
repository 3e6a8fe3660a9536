import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { multiInstance, startTestApp, startTwoInstances, type TestApp } from "../../../test/helpers/app.js";

const SUBSCRIPTION = `subscription($id: ID!) { userStatusChanged(userId: $id) { id status } }`;

/** Opens a GraphQL subscription over SSE and resolves with the first event's payload. */
async function firstSseEvent(t: TestApp, key: string, variables: Record<string, unknown>) {
  const res = await t.app.fetch("/graphql", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query: SUBSCRIPTION, variables }),
  });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  const next = async (): Promise<any> => {
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended");
      buffer += new TextDecoder().decode(value);
      const data = /^data: (.+)$/m.exec(buffer);
      if (data && data[1].trim() !== "") return JSON.parse(data[1]);
    }
  };
  return { next, close: () => reader.cancel() };
}

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
    const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${key}` }, retryAttempts: 0 });
    const event = new Promise<any>((resolve, reject) =>
      client.subscribe({ query: SUBSCRIPTION, variables: { id: user.user_id } }, { next: resolve, error: reject, complete: () => {} }));
    await new Promise((r) => setTimeout(r, 100));
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
  beforeAll(async () => { ({ a, b, stop } = await startTwoInstances()); });
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
