// The procedures' middleware chain (server/trpc/index.ts): a signed-in procedure gets the very context its
// door built, narrowed in type only (server/trpc/middleware/authed.ts relies on tRPC passing the context on
// unchanged when a middleware gives next() no ctx), and the callers are refused as before.
import { describe, expect, it } from "vitest";
import type { Context } from "../../server/context.js";
import { createContextInner } from "../../server/context.js";
import { adminProcedure, authedProcedure, createCallerFactory, publicProcedure, router } from "../../server/trpc/index.js";

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
});
