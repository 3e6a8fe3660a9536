/**
 * Ordinary integrator code, written against a client generated from /openapi.json
 * (openapi-typescript → generated/api.d.ts, git-ignored) with openapi-fetch. test/contract.test.ts
 * compiles it with strict tsc, then runs `onboard` against the server: it compiles only while the
 * document states what the server does (non-null fields, required inputs, headers, problem members),
 * and every `@ts-expect-error` line is a call the server refuses, which the document must refuse too.
 */
import createClient from "openapi-fetch";
import type { paths } from "./generated/api.js";

type Fetch = (request: Request) => Promise<Response>;

/** `refused`: also make the calls the document forbids (a validating proxy answers those itself). */
export async function onboard(baseUrl: string, apiKey: string, { fetch, refused = true }: { fetch?: Fetch; refused?: boolean } = {}) {
  const api = createClient<paths>({ baseUrl, headers: { "X-Api-Key": apiKey }, ...(fetch ? { fetch } : {}) });
  const seen: Record<string, number> = {};
  const note = (what: string, response: Response) => {
    seen[what] = response.status;
  };

  if (refused) {
    // @ts-expect-error a new user needs first_name and last_name, and an email or a phone number
    note("create without fields", (await api.POST("/v2/users", { body: {} })).response);
    // @ts-expect-error an email or a phone number is required
    note("create without contact", (await api.POST("/v2/users", { body: { first_name: "Ana", last_name: "Cruz" } })).response);
  }

  const created = await api.POST("/v2/users", {
    body: { first_name: "Ana", last_name: "Cruz", email: `ana.${Date.now()}@example.com`, country_of_residence: "SG" },
  });
  if (!created.data) throw new Error(`sign-up failed: ${created.error?.code} ${created.error?.detail}`);
  const user = created.data;
  note("create", created.response);
  // non-null in the schema, so ordinary code needs no checks
  const userId: string = user.user_id;
  const initials = `${user.first_name?.[0] ?? ""}${user.last_name?.[0] ?? ""}`;
  const status: "PENDING" | "IN_REVIEW" | "ACTIVE" | "REJECTED" | "SUSPENDED" | "CLOSED" = user.status;
  const due: string[] = user.requirements.currently_due;

  const read = await api.GET("/v2/users/{user_id}", { params: { path: { user_id: userId } } });
  note("read", read.response);
  const etag = read.response.headers.get("etag") ?? "";
  const unchanged = await api.GET("/v2/users/{user_id}", { params: { path: { user_id: userId }, header: { "If-None-Match": etag } } });
  note("read if none match", unchanged.response);

  const updated = await api.PUT("/v2/users/{user_id}", {
    params: { path: { user_id: userId }, header: { "If-Match": etag } },
    body: { middle_name: "Maria", residential_address: { line1: "1 Orchard Rd", city: "Singapore", postal_code: "238801", country: "SG" } },
  });
  note("update", updated.response);
  const stale = await api.PUT("/v2/users/{user_id}", { params: { path: { user_id: userId }, header: { "If-Match": etag } }, body: { middle_name: "M" } });
  note("update with a stale ETag", stale.response);
  if (stale.error) stale.error.code satisfies string;

  const requirements = await api.GET("/v2/compliance/requirements", { params: { query: { country: "SG" } } });
  note("requirements", requirements.response);
  const owed = requirements.data?.currently_due.map((item) => item.toUpperCase()) ?? [];
  // @ts-expect-error the country is required
  if (refused) note("requirements without a country", (await api.GET("/v2/compliance/requirements", { params: { query: {} } })).response);

  // the user is named by the header instead of the body
  const otp = await api.POST("/v2/users/trigger/otp/email", { params: { header: { "X-Auth-User-ID": userId } }, body: {} });
  note("trigger otp by header", otp.response);
  const wrong = await api.POST("/v2/users/verify/otp", { body: { user_id: userId, channel: "EMAIL", code: "000000" } });
  note("verify a wrong code", wrong.response);
  const attemptsLeft: number | undefined = wrong.error?.attempts_remaining;

  const verify = await api.POST("/v2/users/verify", { body: { user_id: userId } });
  note("verify", verify.response);
  const stillDue: string[] = verify.error?.code === "REQUIREMENTS_DUE" ? (verify.error.currently_due ?? []) : [];

  const page = await api.GET("/v2/users", { params: { query: { status: "PENDING", records_per_page: 5 } } });
  note("list", page.response);
  const ids: string[] = page.data?.data.map((u) => u.user_id) ?? [];
  const total: number = page.data?.pagination.total_records ?? 0;

  return { userId, initials, status, due, owed, attemptsLeft, stillDue, ids, total, seen };
}
