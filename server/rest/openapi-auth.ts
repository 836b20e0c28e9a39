// The better-auth paths a person signs in with, for /openapi.json (docs/api.md#authentication). Each request
// schema is rendered from better-auth's own zod schema of that endpoint, so it follows an upgrade; the answers
// are written here for this service's configuration (the admin plugin's user fields) and held to real
// answers by test/integration/openapi-auth.test.ts. better-auth's openAPI plugin was not reused: its generator
// is reachable only through two more public endpoints it mounts, covers every endpoint, and answers with
// OpenAPI 3.0 keywords (`nullable`) and loose shapes.
import { getSession, signInEmail, signUpEmail } from "better-auth/api";
import { z } from "zod";

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

export const AUTH_TAG = {
  name: "Authentication",
  description:
    "better-auth's sign-up, sign-in and session paths under /api/auth (docs/api.md#authentication). Their answers are better-auth's " +
    "own bodies, not the envelope; a refusal is `{message, code}`, or the envelope when the service refuses in front of it. Its " +
    "admin-plugin paths (/api/auth/admin/*) answer 404: accounts are administered under /api/admin/users (tag Accounts).",
} as const;

/**
 * better-auth's schema of a body or query, as a JSON Schema of this document (no $schema of its own). Sign-up's
 * is its fields `allOf` a record of any more (better-auth refuses those it does not know): the fields are kept.
 */
function fromBetterAuth(schema: unknown, descriptions: Record<string, string> = {}): JsonSchema {
  const rendered = z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  const json = (Array.isArray(rendered.allOf) ? rendered.allOf[0] : rendered) as JsonSchema;
  delete json.$schema;
  // Every field says what it is (some of better-auth's have no description, or have it on one branch only).
  for (const [name, field] of Object.entries(json.properties ?? {})) {
    const description = descriptions[name] ?? field.description;
    if (typeof description === "string") field.description = description;
  }
  return json;
}

const date = z.iso.datetime({ offset: true }).describe("ISO 8601 time");

/** An account as better-auth answers it, with the admin plugin's fields. */
const authUser = z
  .strictObject({
    id: z.string().describe("The user's id"),
    name: z.string().describe("Display name"),
    email: z.string().describe("Sign-in address, lower-cased"),
    emailVerified: z.boolean().describe("Whether the address was verified (this service sends no verification mail)"),
    image: z.string().nullable().describe("Avatar URL, if any"),
    createdAt: date,
    updatedAt: date,
    role: z.string().nullable().describe("`admin` (a platform admin) or `user`"),
    banned: z.boolean().nullable().describe("Whether the account is banned (cannot sign in)"),
    banReason: z.string().nullable().describe("Why, as the banning admin wrote it"),
    banExpires: date.nullable().describe("When the ban ends; null for a ban without end"),
  })
  .meta({ id: "AuthUser", description: "An account (better-auth's user with the admin plugin's fields)" });

const authSession = z
  .strictObject({
    id: z.string().describe("The session's id"),
    token: z.string().describe("The session token (send as `Authorization: Bearer <token>`)"),
    userId: z.string().describe("Whose session it is"),
    expiresAt: date,
    createdAt: date,
    updatedAt: date,
    ipAddress: z.string().nullable().describe("The client address it was made from"),
    userAgent: z.string().nullable().describe("The User-Agent it was made with"),
    impersonatedBy: z.string().nullable().describe("The admin impersonating the user in this session, else null"),
  })
  .meta({ id: "AuthSession", description: "A session" });

const success = z.strictObject({ success: z.literal(true) });

/** The answers, rendered in one pass so AuthUser and AuthSession become components. */
const answers = {
  signUp: z.strictObject({ token: z.string().describe("The new session's token"), user: authUser }),
  signIn: z.strictObject({
    redirect: z.literal(false),
    token: z.string().describe("The session token"),
    url: z.string().nullable().optional().describe("Never set for e-mail sign-in"),
    user: authUser,
  }),
  signOut: success,
  getSession: z.strictObject({ session: authSession, user: authUser }).nullable().describe("null without a valid session"),
  success,
};

function renderAnswers() {
  const json = z.toJSONSchema(z.strictObject(answers), { io: "output", target: "draft-2020-12" }) as JsonSchema & {
    $defs?: Record<string, JsonSchema>;
  };
  const relocated = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as typeof json;
  return { byName: relocated.properties as Record<keyof typeof answers, JsonSchema>, components: relocated.$defs ?? {} };
}

const AUTH_ERROR: JsonSchema = {
  type: "object",
  required: ["message"],
  properties: {
    message: { type: "string", description: "A sentence for a person" },
    code: { type: "string", description: "better-auth's code, e.g. INVALID_EMAIL_OR_PASSWORD, USER_NOT_FOUND, FORBIDDEN" },
  },
  description: "better-auth's refusal",
};

const refusal = (description: string) => ({
  description,
  content: {
    "application/json": { schema: { anyOf: [{ $ref: "#/components/schemas/AuthError" }, { $ref: "#/components/schemas/Error" }] } },
  },
});

/** What may refuse any of these: better-auth (`{message, code}`), or the service in front of it (the envelope). */
const refusals = {
  "400": refusal(
    "A field missing or malformed (better-auth); a path under /api/auth/ not in normal form, or a NUL or lone surrogate anywhere in the body (envelope)",
  ),
  "401": refusal("No session, or a wrong e-mail or password"),
  "403": refusal("A cookie write from an untrusted origin; a browser's call from an origin not in TRUSTED_ORIGINS; closed sign-up"),
  "413": { $ref: "#/components/responses/E413" },
  "415": { $ref: "#/components/responses/E415" },
  "429": { $ref: "#/components/responses/E429" },
};

const json = (schema: unknown) => ({ "application/json": { schema } });

type Op = { id: string; summary: string; admin: boolean; body?: JsonSchema; query?: JsonSchema; answers: Record<string, unknown> };

function operation(op: Op) {
  const parameters = Object.entries(op.query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: op.query?.required?.includes(name) ?? false,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
    schema,
  }));
  return {
    operationId: op.id,
    summary: op.summary,
    tags: [AUTH_TAG.name],
    security: op.admin ? [{ bearerAuth: [] }, { sessionCookie: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: json(op.body) } } : {}),
    responses: { ...op.answers, ...refusals, ...(op.admin ? { "404": refusal("No such user (USER_NOT_FOUND)") } : {}) },
  };
}

/** The paths, and the schemas they refer to (AuthUser, AuthSession, AuthError). */
export function authOpenApi() {
  const { byName, components } = renderAnswers();
  const ok = (description: string, schema: JsonSchema) => ({ "200": { description, content: json(schema) } });
  const paths: Record<string, Record<string, unknown>> = {
    "/api/auth/sign-up/email": {
      post: operation({
        id: "auth.signUpEmail",
        summary: "Make an account and a session (403 while SIGN_UP=closed); a body naming a role is 400 FIELD_NOT_ALLOWED",
        admin: false,
        body: fromBetterAuth(signUpEmail().options.body, {
          name: "Display name",
          email: "Sign-in address",
          password: "8 to 128 characters",
          image: "Avatar URL",
          callbackURL: "Where a verification link would lead (unused: this service sends no mail)",
          rememberMe: "false: the session ends with the browser session (cookie without Max-Age)",
        }),
        answers: {
          ...ok("The account and its first session", byName.signUp),
          // better-auth's status, documented rather than remapped: its clients key on its code.
          "422": refusal("An account with this e-mail address exists (USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL)"),
        },
      }),
    },
    "/api/auth/sign-in/email": {
      post: operation({
        id: "auth.signInEmail",
        summary: "Sign in: the session token in `token` and the set-auth-token header, and the session cookie",
        admin: false,
        body: fromBetterAuth(signInEmail().options.body),
        answers: ok("Signed in", byName.signIn),
      }),
    },
    "/api/auth/sign-out": {
      post: operation({
        id: "auth.signOut",
        summary: "End the caller's session (bearer token or cookie)",
        admin: false,
        answers: ok("Signed out", byName.signOut),
      }),
    },
    "/api/auth/get-session": {
      get: operation({
        id: "auth.getSession",
        summary: "The caller's session and account, or null",
        admin: false,
        query: fromBetterAuth(getSession().options.query),
        answers: ok("The session, or null", byName.getSession),
      }),
    },
  };
  return { paths, schemas: { ...components, AuthError: AUTH_ERROR } };
}
