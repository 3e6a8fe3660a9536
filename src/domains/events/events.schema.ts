/** Subscriptions (a caller hears only its own client's events, for users it can read) and catch-up (`events`). */
import { pipe, filter } from "graphql-yoga";
import { builder } from "../../graphql/builder.js";
import { tenantOf } from "../../context.js";
import { getUser } from "../users/users.service.js";
import { withTotalCount } from "../../graphql/paging.js";
import { invalid } from "../../lib/errors.js";
import { listEvents, type EventEnvelope } from "./events.service.js";

builder.subscriptionType({});

builder.subscriptionField("userStatusChanged", (t) =>
  t.prismaField({
    type: "User",
    authScopes: { scope: "users:read" },
    description: "The user, each time its status moves (user.status.updated)",
    args: { userId: t.arg.id({ required: true }) },
    subscribe: async (_root, { userId }, ctx) => {
      await getUser(ctx, String(userId), { select: { id: true } }); // 404 for another client's user
      return pipe(
        ctx.events.subscribe("user.status.updated", tenantOf(ctx)),
        filter((e) => e.userId === String(userId)),
      );
    },
    resolve: (query, event, _args, ctx) => getUser(ctx, (event as { userId: string }).userId, query),
  }),
);

const EventRef = builder.objectRef<EventEnvelope>("Event").implement({
  description: "An event as webhooks send it",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type", { description: "e.g. user.status.updated" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    data: t.field({ type: "JSON", description: "{user_id, …} in REST's snake_case names", resolve: (e) => e.data }),
  }),
});

builder.queryField("events", (t) =>
  t.connection(
    {
      type: EventRef,
      authScopes: { scope: "users:read" },
      description: "Catch-up: the caller's client's events after the event `after` (an event id; every edge's cursor is its event's id), oldest first",
      args: { types: t.arg.stringList({ required: false, description: "only these event types" }) },
      resolve: async (_root, args, ctx) => {
        if (args.last != null || args.before != null)
          throw invalid([{ field: args.last != null ? "last" : "before", code: "invalid", message: "events are read forwards only: use first and after." }]);
        const { page, hasNextPage, totalCount } = await listEvents(ctx, args);
        return {
          totalCount,
          edges: page.map((node) => ({ cursor: node.id, node })),
          pageInfo: { hasNextPage, hasPreviousPage: args.after != null, startCursor: page[0]?.id ?? null, endCursor: page.at(-1)?.id ?? null },
        };
      },
    },
    withTotalCount("EventConnection"),
  ),
);
