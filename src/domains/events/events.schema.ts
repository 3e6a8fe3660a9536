/** Subscriptions: a caller hears only its own client's events, for users it can read. */
import { pipe, filter } from "graphql-yoga";
import { builder } from "../../graphql/builder.js";
import { tenantOf } from "../../context.js";
import { getUser } from "../users/users.service.js";

builder.subscriptionType({});

builder.subscriptionField("userStatusChanged", (t) =>
  t.prismaField({
    type: "User",
    authScopes: { scope: "users:read" },
    description: "The user, each time its status moves (user.status.updated)",
    args: { userId: t.arg.id({ required: true }) },
    subscribe: async (_root, { userId }, ctx) => {
      await getUser(ctx, String(userId), { select: { id: true } }); // 404 for another client's user
      return pipe(ctx.events.subscribe("user.status.updated", tenantOf(ctx)), filter((e) => e.userId === String(userId)));
    },
    resolve: (query, event, _args, ctx) => getUser(ctx, (event as { userId: string }).userId, query),
  }),
);
