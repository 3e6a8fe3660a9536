/** A write load: `workers` loops each POSTing new users until stopped; every answer is recorded. */
export type Outcome = { status: number; ms: number; at: number; email: string; body: any; headers: Headers | null; error?: string; via: "rest" | "graphql" };

const CREATE_USER = `mutation($input: CreateUserInput!) { createUser(input: $input) { id email } }`;

export function writeLoad(base: string, key: string, { workers = 8, tag = "load", timeoutMs = 10_000, graphqlShare = 0.25, idempotencyShare = 0.5 } = {}) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  async function one(): Promise<void> {
    const i = n++;
    const email = `${tag}-${i}@example.com`;
    const via = ((i * 37) % 100) / 100 < graphqlShare ? "graphql" : "rest";
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    if (((i * 7) % 100) / 100 < idempotencyShare) headers["idempotency-key"] = `${tag}-${i}`;
    const input = { first_name: "Load", last_name: `N${i}`, email };
    const body =
      via === "rest" ? JSON.stringify(input) : JSON.stringify({ query: CREATE_USER, variables: { input: { firstName: "Load", lastName: `N${i}`, email } } });
    const started = Date.now();
    try {
      const res = await fetch(`${base}${via === "rest" ? "/v2/users" : "/graphql"}`, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      let json: any = text;
      try {
        json = JSON.parse(text);
      } catch {
        /* kept as text */
      }
      outcomes.push({ status: res.status, ms: Date.now() - started, at: Date.now(), email, body: json, headers: res.headers, via });
    } catch (error) {
      outcomes.push({
        status: 0,
        ms: Date.now() - started,
        at: Date.now(),
        email,
        body: null,
        headers: null,
        error: (error as Error).name + ": " + (error as Error).message,
        via,
      });
    }
  }
  const loops = Array.from({ length: workers }, async () => {
    while (running) await one();
  });
  return {
    outcomes,
    /** stops issuing, waits for the requests in flight */
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** A write the service acknowledged: 2xx over REST, data without errors over GraphQL. */
export const acknowledged = (o: Outcome) => o.status >= 200 && o.status < 300 && (o.via === "rest" || (o.body?.data?.createUser && !o.body.errors));

export function summary(outcomes: Outcome[]) {
  const by = new Map<string, number>();
  for (const o of outcomes) {
    const code = o.via === "rest" ? o.body?.code : o.body?.errors?.[0]?.extensions?.code;
    const k = `${o.via} ${o.status}${code ? ` ${code}` : ""}${o.error ? ` ${o.error}` : ""}`;
    by.set(k, (by.get(k) ?? 0) + 1);
  }
  return Object.fromEntries([...by].sort());
}
