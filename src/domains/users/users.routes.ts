/** REST entries for /v2/users. Each maps a path and body onto a GraphQL operation; no rules here. */
import { bodyInput, queryVariables, restOperation, type PathLookup, type Route } from "../../rest/route.js";
import { getUser } from "./users.service.js";

/** The REST user body: every field, snake_case by alias (`user_id` for `id`). */
export const USER_REST_FIELDS = `
  user_id: id externalId email phoneNumber firstName middleName lastName dateOfBirth nationality countryOfResidence
  residentialAddress { line1 line2 city state postalCode country }
  billingAddress { line1 line2 city state postalCode country }
  taxId locale status kycStatus riskLevel riskScore riskAssessmentStatus emailVerified phoneVerified
  pendingEmail pendingPhoneNumber requirements { currentlyDue eventuallyDue errors { field code message } }
  standingDecisions { checkId type status decidedBy decidedAt }
  createdAt updatedAt etag`;

/** The user a path names, of the caller's client. */
export const userInPath: PathLookup = (ctx, params) => getUser(ctx, params.user_id, { select: { id: true } });

const USER_QUERY = ["email", "external_id", "status", "sort_fields", "sort_order"];

export const usersRoutes: Route[] = [
  {
    method: "POST",
    path: "/v2/users",
    summary: "Create a user",
    scope: "users:write",
    status: 201,
    etagField: "etag",
    operation: restOperation(`mutation CreateUser($input: CreateUserInput!) { createUser(input: $input) { ${USER_REST_FIELDS} } }`),
    variables: (req) => ({ input: bodyInput(req) }),
    field: "createUser",
  },
  {
    method: "PUT",
    path: "/v2/users/{user_id}",
    summary: "Update a user (partial; If-Match honoured)",
    scope: "users:write",
    etagField: "etag",
    operation: restOperation(`mutation UpdateUser($input: UpdateUserInput!) { updateUser(input: $input) { ${USER_REST_FIELDS} } }`),
    lookup: userInPath,
    variables: (req) => ({ input: bodyInput(req, { id: req.params.user_id, ifMatch: req.headers.get("if-match") }) }),
    field: "updateUser",
  },
  {
    method: "GET",
    path: "/v2/users/{user_id}",
    summary: "Read a user",
    scope: "users:read",
    etagField: "etag",
    operation: restOperation(`query User($id: ID!) { user(id: $id) { ${USER_REST_FIELDS} } }`),
    lookup: userInPath,
    variables: (req) => ({ id: req.params.user_id }),
    field: "user",
  },
  {
    method: "GET",
    path: "/v2/users",
    summary: "List the client's users",
    scope: "users:read",
    list: true,
    queryParams: USER_QUERY,
    operation:
      restOperation(`query Users($first: Int, $after: String, $email: String, $externalId: String, $status: UserStatus, $sortFields: String, $sortOrder: String) {
      users(first: $first, after: $after, email: $email, externalId: $externalId, status: $status, sortFields: $sortFields, sortOrder: $sortOrder) {
        totalCount edges { node { ${USER_REST_FIELDS.replace("etag", "")} } } } }`),
    variables: (req) => queryVariables(req, USER_QUERY),
    field: "users",
  },
];
