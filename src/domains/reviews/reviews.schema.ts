/** GraphQL for compliance reviews: the queue, one review, assign / decide / approve, reviewUpdated. */
import { HitDecision, ReviewOutcome, ReviewStatus } from "../../../generated/prisma/enums.js";
import { builder } from "../../graphql/builder.js";
import { costs } from "../../graphql/cost.js";
import { listResolver, withTotalCount } from "../../graphql/paging.js";
import { ownColumns } from "../../graphql/planned-query.js";
import { REVIEW_SCOPE } from "../../principal.js";
import { tenantOf } from "../../context.js";
import { Repeater } from "graphql-yoga";
import { assignReview, findReviews, getReview, reviewerOf, reviewQueue, type ReviewFilter } from "./reviews.service.js";
import { approveReview, decideReview } from "../../flows/decide-review.js";
import { REVIEW_REASON_CODES } from "./reviews.rules.js";
import { CheckTypeEnum } from "../checks/checks.schema.js";
import type { MatchExplanation } from "../checks/screening/screen-person.js";
import { readMatch } from "../checks/checks.matches.js";

const scope = { scope: REVIEW_SCOPE };

const ReviewStatusEnum = builder.enumType(ReviewStatus, {
  name: "ReviewStatus",
  description: "OPEN and ESCALATED wait for a decision; PENDING_APPROVAL for a second reviewer; CLOSED: the decision took effect",
});
const ReviewOutcomeEnum = builder.enumType(ReviewOutcome, { name: "ReviewOutcome" });
const HitDecisionEnum = builder.enumType(HitDecision, { name: "HitDecision" });

const Reviewer = builder.prismaObject("Reviewer", {
  description: "A named person of the client who works its reviews",
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name"), email: t.exposeString("email", { nullable: true }) }),
});

type Explanation = MatchExplanation;

const NamePair = builder.objectRef<Explanation["name"]["pairs"][number]>("NamePair").implement({
  description: "A word (or joined words) of the user's name paired with the listed name's, and how alike (0-1)",
  fields: (t) => ({ given: t.exposeString("given"), listed: t.exposeString("listed"), similarity: t.exposeFloat("similarity") }),
});
const NameExplanation = builder.objectRef<Explanation["name"]>("NameExplanation").implement({
  fields: (t) => ({
    score: t.exposeFloat("score"),
    pairs: t.field({ type: [NamePair], extensions: costs({ listSize: 8 }), resolve: (n) => n.pairs }),
    unpairedGiven: t.exposeStringList("unpairedGiven", { description: "The user's words the alignment left unpaired" }),
    unpairedListed: t.exposeStringList("unpairedListed", { description: "The listed name's words left unpaired" }),
    reordered: t.exposeBoolean("reordered", { description: "The words pair in another order than written" }),
  }),
});
const FeatureComparison = builder.objectRef<Explanation["dateOfBirth"] | Explanation["nationality"]>("FeatureComparison").implement({
  description:
    "One feature compared: what the user gave, what the entry lists, the verdict (dates: exact, year, near, conflict, unknown; nationality: match, conflict, unknown)",
  fields: (t) => ({ given: t.exposeString("given", { nullable: true }), listed: t.exposeStringList("listed"), verdict: t.exposeString("verdict") }),
});
const AliasExplanation = builder.objectRef<Explanation["alias"]>("AliasExplanation").implement({
  description: "The listed name that matched: the entry's primary name or an alias (a weak alias counts only with the date of birth)",
  fields: (t) => ({ matched: t.exposeString("matched"), primary: t.exposeBoolean("primary"), weak: t.exposeBoolean("weak") }),
});
const HitExplanation = builder.objectRef<Explanation>("HitExplanation").implement({
  description: "How the matcher weighed the hit, feature by feature",
  fields: (t) => ({
    name: t.field({ type: NameExplanation, resolve: (e) => e.name }),
    dateOfBirth: t.field({ type: FeatureComparison, resolve: (e) => e.dateOfBirth }),
    nationality: t.field({ type: FeatureComparison, resolve: (e) => e.nationality }),
    alias: t.field({ type: AliasExplanation, resolve: (e) => e.alias }),
  }),
});

const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []);

/** The match as recorded: the matcher's own has every field; an upstream provider's or an older row's may lack some or hold them in another shape. */
const matchOf = (hit: { match: unknown }) => readMatch(hit.match);
builder.prismaObject("ReviewHit", {
  name: "ScreeningHit",
  description: "One potential match of a screening: the list entry, what matched and why, and the reviewer's decision",
  fields: (t) => ({
    id: t.exposeID("id"),
    checkId: t.exposeID("checkRunId", { description: "The screening run that found it" }),
    list: t.exposeString("list"),
    listVersion: t.exposeString("listVersion"),
    entryId: t.exposeString("entryId"),
    entryName: t.string({ description: "The entry's primary name", select: { match: true, entryId: true }, resolve: (h) => str(matchOf(h).name) ?? h.entryId }),
    entryNames: t.stringList({
      description: "Every name the entry is listed under (at most 20)",
      select: { match: true },
      resolve: (h) => matchOf(h).entryNames ?? [],
    }),
    matchedName: t.string({ select: { match: true, entryId: true }, resolve: (h) => str(matchOf(h).matchedName) ?? str(matchOf(h).name) ?? h.entryId }),
    score: t.exposeFloat("score"),
    status: t.string({
      description: "CONSIDER or REJECTED, as the matcher judged the hit",
      select: { match: true },
      resolve: (h) => (matchOf(h).status === "REJECTED" ? "REJECTED" : "CONSIDER"),
    }),
    reasons: t.stringList({ select: { match: true }, resolve: (h) => strings(matchOf(h).reasons) }),
    programs: t.stringList({
      description: "The sanctions programmes the entry is listed under",
      select: { match: true },
      resolve: (h) => strings(matchOf(h).programs),
    }),
    explanation: t.field({
      type: HitExplanation,
      nullable: true,
      description: "The matcher's per-feature explanation (null for a hit an upstream provider posted)",
      select: { match: true },
      resolve: (h) => (Array.isArray(matchOf(h).explanation?.name?.pairs) ? matchOf(h).explanation! : null),
    }),
    decision: t.expose("decision", { type: HitDecisionEnum, nullable: true }),
  }),
});

type Screened = { firstName: string | null; middleName: string | null; lastName: string | null; dateOfBirth: string | null; nationality: string | null };
const ScreenedPerson = builder.objectRef<Screened>("ScreenedPerson").implement({
  description: "The user's data as it was screened when the review opened",
  fields: (t) => ({
    firstName: t.string({ resolve: (p) => p.firstName ?? "" }),
    middleName: t.exposeString("middleName", { nullable: true }),
    lastName: t.string({ resolve: (p) => p.lastName ?? "" }),
    dateOfBirth: t.exposeString("dateOfBirth", { nullable: true, description: "YYYY-MM-DD" }),
    nationality: t.exposeString("nationality", { nullable: true }),
  }),
});

const Review = builder.prismaObject("Review", {
  description: "A check run that needs a person, and what the client's reviewers decided",
  fields: (t) => ({
    id: t.exposeID("id"),
    userId: t.exposeID("userId"),
    type: t.expose("type", { type: CheckTypeEnum }),
    status: t.expose("status", { type: ReviewStatusEnum }),
    riskScore: t.exposeInt("riskScore", { description: "0-100; the queue is worked highest first, then oldest" }),
    checkId: t.exposeID("checkRunId", { description: "The newest run the review covers" }),
    reasons: t.exposeStringList("reasons", { description: "What the run found besides hits (due documents, jurisdictions, upstream alerts)" }),
    screened: t.field({ type: ScreenedPerson, extensions: ownColumns({ screened: true }), resolve: (r) => r.screened as Screened }),
    hits: t.relation("hits", { query: { orderBy: [{ score: "desc" }, { entryId: "asc" }] }, extensions: costs({ listSize: 10 }) }),
    assignee: t.relation("assignee", { nullable: true }),
    outcome: t.expose("outcome", { type: ReviewOutcomeEnum, nullable: true }),
    reasonCode: t.exposeString("reasonCode", { nullable: true }),
    note: t.exposeString("note", { nullable: true }),
    decidedBy: t.relation("decidedBy", { nullable: true }),
    decidedAt: t.expose("decidedAt", { type: "DateTime", nullable: true }),
    approvedBy: t.relation("approvedBy", { nullable: true }),
    approvedAt: t.expose("approvedAt", { type: "DateTime", nullable: true }),
    decisionCheckId: t.exposeID("decisionRunId", { nullable: true, description: "The run that carried the decision to the user (trigger REVIEW)" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.queryField("reviews", (t) =>
  t.connection(
    {
      type: Review,
      authScopes: scope,
      description: "The client's reviews, highest risk first, then oldest",
      args: {
        status: t.arg({ type: [ReviewStatusEnum], description: "Only these statuses" }),
        type: t.arg({ type: CheckTypeEnum }),
        assignee: t.arg.string({ description: "me, none (unassigned) or a reviewer id" }),
      },
      resolve: listResolver<ReviewFilter>("Review", (ctx, args, query) => findReviews(ctx, args, query)),
    },
    withTotalCount("ReviewConnection"),
  ),
);

builder.queryField("review", (t) =>
  t.prismaField({
    type: Review,
    authScopes: scope,
    description: "One review with its hits, their explanations, the screened data and the list entries",
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => getReview(ctx, String(id), query),
  }),
);

const ReasonCode = builder.objectRef<{ code: string; label: string; outcomes: ReviewOutcome[] }>("ReviewReasonCode").implement({
  description: "A configured reason a decision may give, with the outcomes it may be given with",
  fields: (t) => ({
    code: t.exposeString("code"),
    label: t.exposeString("label"),
    outcomes: t.field({ type: [ReviewOutcomeEnum], resolve: (r) => r.outcomes }),
  }),
});

builder.queryField("reviewReasonCodes", (t) =>
  t.field({
    type: [ReasonCode],
    authScopes: scope,
    extensions: costs({ listSize: 20 }),
    resolve: (_root, _args, ctx) => {
      reviewerOf(ctx);
      return REVIEW_REASON_CODES();
    },
  }),
);

const Queue = builder.objectRef<Awaited<ReturnType<typeof reviewQueue>>>("ReviewQueue").implement({
  description: "How many reviews wait, by status, and since when the oldest undecided one",
  fields: (t) => ({
    open: t.exposeInt("open"),
    escalated: t.exposeInt("escalated"),
    pendingApproval: t.exposeInt("pendingApproval"),
    oldestOpenAt: t.expose("oldestOpenAt", { type: "DateTime", nullable: true }),
  }),
});

builder.queryField("reviewQueue", (t) => t.field({ type: Queue, authScopes: scope, resolve: (_root, _args, ctx) => reviewQueue(ctx) }));

builder.queryField("currentReviewer", (t) =>
  t.prismaField({
    type: Reviewer,
    authScopes: scope,
    description: "The reviewer the calling key belongs to",
    resolve: (query, _root, _args, ctx) => ctx.db.reviewer.findUniqueOrThrow({ ...query, where: { id: reviewerOf(ctx).id } }),
  }),
);

const AssignReviewInput = builder.inputType("AssignReviewInput", {
  fields: (t) => ({ reviewId: t.id({ required: true }), assigneeId: t.id({ description: "A reviewer of your client; left out, the caller" }) }),
});
const HitDecisionInput = builder.inputType("HitDecisionInput", {
  fields: (t) => ({ hitId: t.id({ required: true }), decision: t.field({ type: HitDecisionEnum, required: true }) }),
});
const DecideReviewInput = builder.inputType("DecideReviewInput", {
  fields: (t) => ({
    reviewId: t.id({ required: true }),
    outcome: t.field({ type: ReviewOutcomeEnum, required: true }),
    reasonCode: t.string({ required: true, description: "One of reviewReasonCodes allowed with the outcome" }),
    note: t.string({ description: "At most 2000 characters" }),
    hits: t.field({ type: [HitDecisionInput], description: "Every hit's decision, to CLEAR (all FALSE_POSITIVE) or REJECT (at least one TRUE_MATCH)" }),
  }),
});
const ApproveReviewInput = builder.inputType("ApproveReviewInput", {
  fields: (t) => ({ reviewId: t.id({ required: true }), note: t.string({ description: "At most 2000 characters" }) }),
});

builder.mutationFields((t) => ({
  assignReview: t.prismaField({
    type: Review,
    authScopes: scope,
    args: { input: t.arg({ type: AssignReviewInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      assignReview(ctx, { reviewId: String(input.reviewId), assigneeId: input.assigneeId == null ? null : String(input.assigneeId) }, query),
  }),
  decideReview: t.prismaField({
    type: Review,
    authScopes: scope,
    description:
      "A reviewer's decision: ESCALATE hands it on; CLEAR and REJECT take effect at once, except a REJECT or the CLEAR of a HIGH-risk user, which waits for a second reviewer (PENDING_APPROVAL)",
    args: { input: t.arg({ type: DecideReviewInput, required: true }) },
    resolve: (query, _root, { input }, ctx) =>
      decideReview(
        ctx,
        { ...input, reviewId: String(input.reviewId), hits: input.hits?.map((h) => ({ hitId: String(h.hitId), decision: h.decision })) },
        query,
      ),
  }),
  approveReview: t.prismaField({
    type: Review,
    authScopes: scope,
    description: "A second, different reviewer's approval of a decision waiting in PENDING_APPROVAL: it takes effect",
    args: { input: t.arg({ type: ApproveReviewInput, required: true }) },
    resolve: (query, _root, { input }, ctx) => approveReview(ctx, { reviewId: String(input.reviewId), note: input.note }, query),
  }),
}));

builder.subscriptionField("reviewUpdated", (t) =>
  t.prismaField({
    type: Review,
    authScopes: scope,
    description: "Every review of the client as it opens, is assigned, escalated, given hits, decided or approved",
    subscribe: (_root, _args, ctx) => {
      reviewerOf(ctx);
      const clientId = tenantOf(ctx);
      return Repeater.merge([
        ctx.events.subscribe("review.opened", clientId),
        ctx.events.subscribe("review.decided", clientId),
        ctx.events.subscribe("review.updated", clientId),
      ]);
    },
    resolve: (query, event, _args, ctx) => getReview(ctx, (event as { reviewId: string }).reviewId, query),
  }),
);
