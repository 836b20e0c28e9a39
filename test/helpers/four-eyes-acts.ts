// The acts of the four-eyes search (test/integration/four-eyes-search.test.ts): what one person does with one
// credential they hold, through the REST bodies a browser sends or the shapes an attacker would (an array id,
// an extra field, better-auth's closed admin paths). Each act records what it learnt in the world; the
// invariants (four-eyes-invariant.ts) judge it.
import fc from "fast-check";
import { expect } from "vitest";
import { TEST_ORIGIN, TEST_PASSWORD } from "./app.js";
import { insertCohort, registeredPro } from "./fixtures.js";
import { type Credential, PEOPLE, type Person, requestId, type World } from "./four-eyes-world.js";

export const KINDS = [
  "signIn",
  "impersonate",
  "stop",
  "fileCohort",
  "filePro",
  "approve",
  "reject",
  "cancel",
  "setRole",
  "createUser",
  "setPassword",
  "updateEmail",
  "ban",
  "unban",
  "remove",
  "revokeSessions",
] as const;
export type Kind = (typeof KINDS)[number];
/** How the body is sent: as the console sends it, or as an attacker shapes it. */
export type Shape = "plain" | "arrayId" | "extraField" | "betterAuth";

export type Act = { kind: Kind; person: Person; credential: number; target: number; pick: number; role: "user" | "admin"; shape: Shape };

/** How often each act is tried: the ones four-eyes turns on more often than the rest. */
const WEIGHTS: Record<Kind, number> = {
  signIn: 3,
  impersonate: 4,
  stop: 1,
  fileCohort: 4,
  filePro: 2,
  approve: 8,
  reject: 1,
  cancel: 1,
  setRole: 5,
  createUser: 3,
  setPassword: 4,
  updateEmail: 1,
  ban: 1,
  unban: 1,
  remove: 1,
  revokeSessions: 1,
};

export const actArbitrary: fc.Arbitrary<Act> = fc.record({
  kind: fc.oneof(...KINDS.map((kind) => ({ weight: WEIGHTS[kind], arbitrary: fc.constant(kind) }))),
  // The admins act most: they are the ones who could defeat four-eyes.
  person: fc.oneof({ weight: 3, arbitrary: fc.constantFrom<Person>("A", "B") }, { weight: 1, arbitrary: fc.constantFrom(...PEOPLE) }),
  credential: fc.nat(7),
  // Mostly the four people's own accounts, so acts meet on the same account; sometimes one made meanwhile.
  target: fc.oneof({ weight: 3, arbitrary: fc.nat(3) }, { weight: 1, arbitrary: fc.nat(7) }),
  // Counted from the newest filed request: what was just asked is what is decided next, most often.
  pick: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(7) }),
  role: fc.oneof({ weight: 3, arbitrary: fc.constant("admin" as const) }, { weight: 1, arbitrary: fc.constant("user" as const) }),
  shape: fc.oneof(
    { weight: 6, arbitrary: fc.constant<Shape>("plain") },
    { weight: 1, arbitrary: fc.constantFrom<Shape>("arrayId", "extraField", "betterAuth") },
  ),
});

export type Answer = { status: number; data: Record<string, unknown> | undefined; requestId: string; changesNothing?: boolean };

/** better-auth's admin path and body for each account act an attacker would aim at it. */
const betterAuthPath: Partial<Record<Kind, string>> = {
  setRole: "set-role",
  setPassword: "set-user-password",
  ban: "ban-user",
  unban: "unban-user",
  remove: "remove-user",
  revokeSessions: "revoke-user-sessions",
  impersonate: "impersonate-user",
  updateEmail: "update-user",
};

/** tRPC's procedure for each account act that names a user by id. */
const procedureOf: Partial<Record<Kind, string>> = {
  setRole: "users.setRole",
  setPassword: "users.setPassword",
  ban: "users.ban",
  unban: "users.unban",
  remove: "users.remove",
  revokeSessions: "users.revokeSessions",
  impersonate: "users.impersonate",
};

export async function send(world: World, credential: Credential | null, method: string, url: string, body?: unknown): Promise<Answer> {
  const id = requestId();
  const res = await world.app.app.inject({
    method: method as "POST",
    url,
    headers: {
      origin: TEST_ORIGIN,
      "x-request-id": id,
      ...(credential ? { authorization: `Bearer ${credential.token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(500);
  const json = res.body
    ? (JSON.parse(res.body) as { data?: Record<string, unknown>; result?: { data: { json: Record<string, unknown> } } })
    : {};
  return { status: res.statusCode, data: json.data ?? json.result?.data.json, requestId: id };
}

/** The account act `act` against `target`, in the act's shape; null when the act has no such form. */
function accountCall(world: World, credential: Credential, act: Act, target: string, body: Record<string, unknown>, path: string) {
  switch (act.shape) {
    case "plain":
      return send(world, credential, act.kind === "remove" ? "DELETE" : "POST", `/api/admin/users${path}`, body);
    case "extraField":
      return send(world, credential, act.kind === "remove" ? "DELETE" : "POST", `/api/admin/users${path}`, {
        ...body,
        userId: target,
        data: { role: "admin" },
      });
    case "arrayId":
      return send(world, credential, "POST", `/trpc/${procedureOf[act.kind]}`, { json: { ...body, id: [target] } });
    case "betterAuth":
      return send(world, credential, "POST", `/api/auth/admin/${betterAuthPath[act.kind]}`, {
        userId: [target],
        role: act.role,
        newPassword: "a-password-of-the-attacker",
        data: { role: "admin", email: "taken@test.local" },
      });
  }
}

/** Signs `person` in to `account` with the password they know; the credential, or null. */
async function signIn(world: World, person: Person, account: { id: string; email: string }): Promise<Credential | null> {
  const password = passwordOf(world, account.id);
  const answer = await world.app.app.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
    payload: { email: account.email, password },
  });
  if (answer.statusCode !== 200) return null;
  const credential = { token: (answer.json() as { token: string }).token, account: account.id, holder: person, impersonatedBy: null };
  world.credentials.push(credential);
  return credential;
}

/** Every password the search sets is derived from the account, so whoever knows it can type it. */
export const passwords = new Map<string, string>();
const passwordOf = (world: World, account: string) => passwords.get(account) ?? (world.knows.has(account) ? TEST_PASSWORD : "");

export type Performed = { answer: Answer; credential: Credential; target: { id: string; email: string }; request?: string };

/**
 * Runs one act. Returns its answer with the credential and target it used, or null when the person had
 * nothing to act with (no credential, no password they know, nothing filed to decide).
 */
export async function perform(world: World, act: Act): Promise<Performed | null> {
  const held = world.credentials.filter((c) => c.holder === act.person);
  const target = world.accounts[act.target % world.accounts.length]!;
  if (act.kind === "signIn") {
    if (!world.knows.get(target.id)?.has(act.person)) return null;
    const credential = await signIn(world, act.person, target);
    if (!credential) return null;
    return { answer: { status: 200, data: undefined, requestId: "sign-in", changesNothing: true }, credential, target };
  }
  const credential = held[act.credential % Math.max(held.length, 1)];
  if (!credential) return null;
  const filed = [...world.filed.keys()].reverse();
  const request = filed[act.pick % Math.max(filed.length, 1)];
  if (["approve", "reject", "cancel"].includes(act.kind) && !request) return null;
  const answer = await answerOf(world, act, credential, target, request);
  return { answer, credential, target, ...(request ? { request } : {}) };
}

async function answerOf(
  world: World,
  act: Act,
  credential: Credential,
  target: { id: string },
  request: string | undefined,
): Promise<Answer> {
  const R = "/api/admin/restriction";
  switch (act.kind) {
    case "signIn":
      throw new Error("a sign-in is no account act");
    case "stop":
      return send(world, credential, "POST", "/api/admin/impersonation/stop");
    case "fileCohort": {
      const cohort = await insertCohort(world.app.db.db, { passingCheck: true });
      return send(world, credential, "POST", `${R}/cohorts/${cohort.id}/change-requests`, { action: "activate" });
    }
    case "filePro":
      return send(world, credential, "POST", `${R}/${await registeredPro(world.app.db.db)}/change-requests`, { action: "activate" });
    case "approve":
    case "reject":
    case "cancel":
      return send(
        world,
        credential,
        "POST",
        `${R}/change-requests/${request}/${act.kind}`,
        act.kind === "reject" ? { comment: "search" } : {},
      );
    case "createUser": {
      const email = `made-${requestId()}@test.local`;
      const body = { email, password: `${email}-password`, name: "Made", ...(act.role === "admin" ? { role: "admin" } : {}) };
      return act.shape === "plain"
        ? send(world, credential, "POST", "/api/admin/users", body)
        : send(world, credential, "POST", "/api/admin/users", { ...body, id: "chosen" });
    }
    case "setRole":
      return accountCall(world, credential, act, target.id, { role: act.role }, `/${target.id}/role`);
    case "setPassword":
      return accountCall(world, credential, act, target.id, { password: `${target.id}-${act.person}-password` }, `/${target.id}/password`);
    case "ban":
      return accountCall(world, credential, act, target.id, { reason: "search", expiresInDays: 1 }, `/${target.id}/ban`);
    case "unban":
      return accountCall(world, credential, act, target.id, {}, `/${target.id}/unban`);
    case "remove":
      return accountCall(world, credential, act, target.id, {}, `/${target.id}`);
    case "revokeSessions":
      return accountCall(world, credential, act, target.id, {}, `/${target.id}/revoke-sessions`);
    case "impersonate":
      return accountCall(world, credential, act, target.id, {}, `/${target.id}/impersonate`);
    case "updateEmail":
      // The account's e-mail through better-auth: its admin path (closed) or the user's own update-user.
      return act.shape === "betterAuth"
        ? accountCall(world, credential, act, target.id, {}, "")
        : send(world, credential, "POST", "/api/auth/update-user", { email: `moved-${requestId()}@test.local` });
  }
}
