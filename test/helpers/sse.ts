/** A GraphQL subscription over SSE (yoga's `text/event-stream`), read event by event. */
import { expect } from "vitest";
import type { TestApp } from "./app.js";

export async function sseSubscription(t: TestApp, key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await t.app.fetch("/graphql", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  let buffer = "";
  /** the next event's payload ({data} or {errors}) */
  const next = async (): Promise<any> => {
    for (;;) {
      const frame = /^data: (.+)$/m.exec(buffer);
      if (frame) {
        buffer = buffer.slice(frame.index + frame[0].length);
        if (frame[1]!.trim() !== "") return JSON.parse(frame[1]!);
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("stream ended");
      buffer += new TextDecoder().decode(value);
    }
  };
  return { next, close: () => reader.cancel() };
}
