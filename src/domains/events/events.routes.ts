/** REST entry for catch-up: GET /v2/events?after=EVENT_ID&types=a,b (the list envelope, oldest first). */
import { restOperation, type Route } from "../../rest/route.js";

export const eventsRoutes: Route[] = [
  {
    method: "GET",
    path: "/v2/events",
    summary: "The client's events after `after` (an event id), oldest first; page on with the last event's id",
    scope: "users:read",
    list: true,
    queryParams: ["after", "types"],
    // `after` is the event id; the list's own paging variable of that name (an offset) is not used here
    operation: restOperation(`query Events($since: String, $types: [String!], $first: Int) {
      events(after: $since, types: $types, first: $first) { totalCount edges { node { id type createdAt data } } } }`),
    variables: (req) => ({ since: req.query.after ?? null, types: req.query.types ?? null }),
    field: "events",
  },
];
