// The procedures' middleware chain (server/trpc/index.ts): a signed-in procedure gets the very context its
// door built, narrowed in type only (server/trpc/middleware/authed.ts relies on tRPC passing the context on
// unchanged when a middleware gives next() no ctx), and the callers are refused as before.
import { describe, expect, it } from "vitest";
import type { Context } from "../../server/context.js";
import { createContextInner } from "../../server/context.js";
import { appRouter } from "../../server/routers/index.js";
import { adminProcedure, authedProcedure, createCallerFactory, publicProcedure, router } from "../../server/trpc/index.js";
import { procedureAt } from "../../server/trpc/procedure-call.js";

const seen: Context[] = [];
const probe = router({
  open: publicProcedure.query(({ ctx }) => void seen.push(ctx)),
  mine: authedProcedure.query(({ ctx }) => {
    seen.push(ctx);
    return ctx.user.id;
  }),
  admins: adminProcedure.query(({ ctx }) => {
    seen.push(ctx);
    return ctx.session.id;
  }),
});
const call = createCallerFactory(probe);
const contextOf = (role: "admin" | "user" | null) =>
  createContextInner({ db: {} as never, push: {} as never }, role ? { user: { id: `u-${role}`, role } as never } : {});

describe("the procedures' middleware chain", () => {
  it("hands each procedure the context its door built, not a copy", async () => {
    seen.length = 0;
    const admin = contextOf("admin");
    await call(admin).open();
    expect(await call(admin).mine()).toBe("u-admin");
    expect(await call(admin).admins()).toBe("inner");
    expect(seen).toHaveLength(3);
    for (const ctx of seen) expect(ctx).toBe(admin);
  });

  it("refuses a caller without a session (401) and one who is no admin (403), before the procedure runs", async () => {
    seen.length = 0;
    await expect(call(contextOf(null)).mine()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(call(contextOf(null)).admins()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(call(contextOf("user")).admins()).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(seen).toEqual([]);
  });

  it("finds each of the app's procedures by its path and type, with nothing to load first (procedure-call.ts)", () => {
    // tRPC's own lookup would load a lazy router first; the doors' lookup does not, so there must be none.
    expect(Object.keys(appRouter._def.lazy)).toEqual([]);
    const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation" } }>);
    expect(procedures.length).toBeGreaterThan(50);
    for (const [path, procedure] of procedures) {
      expect(procedureAt(appRouter, path, procedure._def.type)).toBe(procedure);
      expect(procedureAt(appRouter, path, procedure._def.type === "query" ? "mutation" : "query")).toBeUndefined();
    }
    for (const path of ["toString", "__proto__", "constructor", "restriction", "restriction.", "", "restriction.getPro.x"]) {
      expect(procedureAt(appRouter, path, "query")).toBeUndefined();
    }
  });
});
