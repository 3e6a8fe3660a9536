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

/** A 1×1 PNG, as a document's file travels in JSON. */
const PNG = {
  file_name: "passport.png",
  mime_type: "image/png",
  content_base64: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
} as const;

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
  const wrong = await api.POST("/v2/users/verify/otp", { body: { user_id: userId, channel: "EMAIL", code: "000001" } });
  note("verify a wrong code", wrong.response);
  const attemptsLeft: number | undefined = wrong.error?.attempts_remaining;

  // the sandbox shows the code that was sent; the right one proves the email
  const sent = await api.GET("/v2/sandbox/messages", { params: { query: { user_id: userId, channel: "EMAIL" } } });
  note("sandbox messages", sent.response);
  const code = sent.data?.data[0]?.code ?? "";
  note("verify the code", (await api.POST("/v2/users/verify/otp", { body: { user_id: userId, channel: "EMAIL", code } })).response);

  const verify = await api.POST("/v2/users/verify", { body: { user_id: userId } });
  note("verify", verify.response);
  const stillDue: string[] = verify.error?.code === "REQUIREMENTS_DUE" ? (verify.error.currently_due ?? []) : [];

  // a document: uploaded as base64, listed, read, its file fetched
  const uploaded = await api.POST("/v2/users/authentications/documents", {
    body: { user_id: userId, document_type: "PASSPORT", document_number: "E1234567", issuing_country: "SG", expiry_date: "2031-01-14", file: PNG },
  });
  note("upload a document", uploaded.response);
  const documentId: string = uploaded.data?.document_id ?? "";
  const documentType: string | undefined = uploaded.data?.document_type;
  note("list documents", (await api.GET("/v2/users/authentications/documents", { params: { query: { user_id: userId } } })).response);
  note("read a document", (await api.GET("/v2/users/authentications/documents/{document_id}", { params: { path: { document_id: documentId } } })).response);
  const file = await api.GET("/v2/users/authentications/documents/{document_id}/file", {
    params: { path: { document_id: documentId } },
    parseAs: "arrayBuffer",
  });
  note("download its file", file.response);

  // the user's checks: listed, and one more asked for
  const checks = await api.GET("/v2/users/{user_id}/checks", { params: { path: { user_id: userId } } });
  note("list checks", checks.response);
  const checkTypes: string[] = checks.data?.data.map((run) => run.type) ?? [];
  note("ask for a check", (await api.POST("/v2/users/{user_id}/checks", { params: { path: { user_id: userId } }, body: { type: "KYC" } })).response);

  // what happened since, and a webhook endpoint for what happens next
  const events = await api.GET("/v2/events", { params: { query: { types: ["user.status.updated"] } } });
  note("list events", events.response);
  const endpoint = await api.POST("/v2/webhooks", { body: { url: "http://127.0.0.1:9/hooks", event_types: ["user.status.updated"] } });
  note("create a webhook endpoint", endpoint.response);
  const secret: string = endpoint.data?.secret ?? "";
  note("list webhook endpoints", (await api.GET("/v2/webhooks")).response);
  note(
    "delete the webhook endpoint",
    (await api.DELETE("/v2/webhooks/{webhook_id}", { params: { path: { webhook_id: endpoint.data?.webhook_id ?? "" } } })).response,
  );

  // remittance lookups
  const currencies = await api.GET("/payouts/remittances/utilities/currencies", { params: { query: { search: "peso" } } });
  note("look up currencies", currencies.response);
  const codes: string[] = currencies.data?.data.map((c) => c.currency_code) ?? [];
  note("look up countries", (await api.GET("/payouts/remittances/utilities/countries", { params: { query: { records_per_page: 5 } } })).response);
  note("look up corridors", (await api.GET("/users/wallet/payouts/remittances/corridors", { params: { query: { records_per_page: 5 } } })).response);

  // enum values in the spellings the document declares: as GraphQL names them, or in lower case
  const page = await api.GET("/v2/users", { params: { query: { status: "pending", records_per_page: 5 } } });
  // @ts-expect-error a mixed case is not a declared spelling (the server answers 400)
  if (refused) note("list with a mixed-case status", (await api.GET("/v2/users", { params: { query: { status: "Pending" } } })).response);
  note("list", page.response);
  const ids: string[] = page.data?.data.map((u) => u.user_id) ?? [];
  const total: number = page.data?.pagination.total_records ?? 0;

  return { userId, initials, status, due, owed, attemptsLeft, stillDue, ids, total, documentType, checkTypes, secret, codes, seen };
}
