/**
 * A person's or an upstream provider's result posted on a run (POST /v2/checks/{check_id}/result,
 * recordCheckResult, the operator key; the sandbox's simulated results too): the checks module judges
 * it, and it replaces whatever the run holds, in any state, and settles the user (run-checks.ts
 * `completeRun`). It stands: later automatic runs may raise the user's risk, never lower what it set,
 * until a person (or, for a provider's, that provider) posts again.
 */
import type { RequestContext } from "../context.js";
import { postedOutcome, type PostedResult } from "../domains/checks/checks.service.js";
import { completeRun } from "./run-checks.js";

export async function recordCheckResult(ctx: RequestContext, posted: PostedResult) {
  const { run, outcome, decidedBy } = await postedOutcome(ctx, posted);
  const done = await completeRun(ctx, run, outcome, {
    requestId: ctx.requestId,
    principal: ctx.principal,
    decidedBy,
    from: ["QUEUED", "RUNNING", "CLEAR", "CONSIDER", "REJECTED", "ERROR"],
  });
  return done!.run;
}
