// The authorization matrix's rows for account administration (users.*, docs/api.md#accounts): each cell acts
// on a fresh account, so no cell ends a session or a role another cell relies on.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { sessions, users } from "../../db/schema/index.js";
import type { MatrixContext, ProcedureRow } from "./authz-rows.js";
import { freshId } from "./fixtures.js";
import { impersonate } from "./four-eyes.js";
import type { ProcedurePath, WireOutput } from "./rest.js";

type UserPaths = Extract<ProcedurePath, `users.${string}`>;

export function userRows(context: () => MatrixContext): { [P in UserPaths]: ProcedureRow<WireOutput<P>> } {
  const db = () => context().app.db.db;
  /** An ordinary account no other cell names. */
  async function freshUser() {
    const id = freshId("acct");
    await db()
      .insert(users)
      .values({ id, name: "Matrix", email: `${id}@test.local` });
    return id;
  }
  const roleOf = async (id: string) => (await db().select({ role: users.role }).from(users).where(eq(users.id, id)))[0]?.role;
  /** A row whose cell acts on a fresh account, with the input `extra` adds. */
  const onFreshUser = <D>(extra: object, after?: (data: D, id: string) => Promise<void> | void): ProcedureRow<D> => ({
    access: "admin",
    prepare: async () => {
      const id = await freshUser();
      return { input: { id, ...extra }, ...(after ? { after: (data: D) => after(data, id) } : {}) };
    },
  });

  return {
    "users.list": {
      access: "admin",
      prepare: async () => {
        const id = await freshUser();
        return { input: { search: id }, after: (data) => expect(data.users.map((u) => u.id)).toEqual([id]) };
      },
    },
    "users.create": {
      access: "admin",
      prepare: async () => ({
        input: { email: `${freshId("made")}@test.local`, password: "a-long-matrix-password", name: "Made" },
        after: (data) => expect(data.user.role).toBe("user"),
      }),
    },
    "users.setRole": onFreshUser({ role: "admin" }, async (_data, id) => expect(await roleOf(id)).toBe("admin")),
    "users.setPassword": onFreshUser({ password: "a-new-matrix-password" }),
    "users.ban": onFreshUser({ reason: "matrix" }, (data) => expect(data.user.banned).toBe(true)),
    "users.unban": onFreshUser({}),
    "users.revokeSessions": onFreshUser({}, (data) => expect(data.sessionsEnded).toBe(0)),
    "users.remove": onFreshUser({}, async (_data, id) => expect(await roleOf(id)).toBeUndefined()),
    "users.impersonate": onFreshUser({}, (data) => expect(data.token).toEqual(expect.any(String))),
    "users.stopImpersonating": {
      access: "impersonating",
      // A fresh impersonation session of the user for the impersonation cell: stopping it ends it.
      prepare: async ({ as }) => {
        if (as !== "impersonation") return {};
        const { callers } = context();
        const session = await impersonate(context().app, callers.admin, callers.user);
        return {
          headers: session.headers,
          after: async () => expect(await db().select().from(sessions).where(eq(sessions.id, session.sessionId))).toEqual([]),
        };
      },
    },
  };
}
