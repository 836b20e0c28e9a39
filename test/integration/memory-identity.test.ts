// Who is calling, from memory (issue W, server/memory/identity.ts): a bearer session and an API key are
// answered from this instance's memory once it can vouch for it; a sign-out, a revocation, a role change or a
// ban takes effect at once on the instance that made it, and within the staleness bound when made by hand.
// On PGlite and PostgreSQL.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { answeredFrom, type MemorySource } from "../helpers/memory.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

/** How long a test waits for what it polls: the bound itself is measured by the bench, not here. */
const WITHIN_MS = 1000;

describe("sessions and API keys in memory", () => {
  const t = useTestApp();
  const o = ofrep(t);

  /** An admin-only read: 200 for an admin, 403 for a user, 401 without a working session. */
  const adminRead = (user: TestUser) =>
    answeredFrom(
      "session",
      async () => (await t().app.inject({ method: "GET", url: "/api/admin/restriction", headers: user.headers })).statusCode,
    );
  const evaluate = (key: TestApiKey) =>
    answeredFrom("api_key", async () => (await o.evaluate({ headers: key.headers, body: forPro("pro-memory") })).statusCode);
  const until = <T>(probe: () => Promise<{ value: T; source: MemorySource }>, value: T, source: MemorySource | "any", what: string) =>
    waitFor(probe, (answer) => answer.value === value && (source === "any" || answer.source === source), { withinMs: WITHIN_MS * 5, what });

  it("answers a bearer session from memory; a sign-out on this instance is refused at once", async () => {
    const admin = await t().signUp({ admin: true });
    await until(() => adminRead(admin), 200, "memory", "the session answered from memory");
    const signOut = await t().app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { ...admin.headers, origin: TEST_ORIGIN } });
    expect(signOut.statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await adminRead(admin)).value).toBe(401);
  });

  it("hears a role change and a deleted session made by hand", async () => {
    const admin = await t().signUp({ admin: true });
    await until(() => adminRead(admin), 200, "memory", "the session answered from memory");
    await t().db.db.execute(sql`update users set role = 'user' where id = ${admin.id}`);
    await until(() => adminRead(admin), 403, "any", "the role change heard");
    await until(() => adminRead(admin), 403, "memory", "the new role answered from memory");
    await t().db.db.execute(sql`update users set role = 'admin' where id = ${admin.id}`);
    await until(() => adminRead(admin), 200, "memory", "the role given back");
    await t().db.db.execute(sql`delete from sessions where user_id = ${admin.id}`);
    await until(() => adminRead(admin), 401, "any", "the deleted session heard");
  });

  it("answers an API key from memory; its revocation through the service is refused at once, and one made by hand is heard", async () => {
    const admin = await t().signUp({ admin: true });
    const [viaService, byHand] = [await insertApiKey(t().db.db), await insertApiKey(t().db.db)];
    await until(() => evaluate(viaService), 200, "memory", "the key answered from memory");
    await until(() => evaluate(byHand), 200, "memory", "the other key answered from memory");

    const revoke = await t().app.inject({ method: "DELETE", url: `/api/admin/api-keys/${viaService.id}`, headers: admin.headers });
    expect(revoke.statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await evaluate(viaService)).value).toBe(401);

    await t().db.db.execute(sql`update api_keys set revoked_at = now() where id = ${byHand.id}`);
    await until(() => evaluate(byHand), 401, "any", "the revocation by hand heard");
    await until(() => evaluate(byHand), 401, "memory", "the revoked key answered from memory");
  });

  it("hears a key's expiry and scopes changed by hand", async () => {
    const [expiring, narrowed, probe] = [await insertApiKey(t().db.db), await insertApiKey(t().db.db), await insertApiKey(t().db.db)];
    for (const key of [expiring, narrowed]) await until(() => evaluate(key), 200, "memory", "the key answered from memory");
    await t().db.db.execute(sql`update api_keys set expires_at = now() - interval '1 minute' where id = ${expiring.id}`);
    await t().db.db.execute(sql`update api_keys set scopes = '{notifications:write}' where id = ${narrowed.id}`);
    // A later change, announced after both: once memory answers it, it has heard them too. The two keys are
    // not used meanwhile, so no read of the database can have refreshed them.
    await t().db.db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values ('pro-memory', true)
      on conflict (pro_id) do update set restriction_active = true`);
    await waitFor(
      () => answeredFrom("pro_status", async () => (await o.evaluate({ headers: probe.headers, body: forPro("pro-memory") })).json()),
      (answer) => answer.source === "memory" && (answer.value as { value: boolean }).value,
      { withinMs: WITHIN_MS * 5, what: "the later change heard" },
    );
    expect((await evaluate(expiring)).value).toBe(401);
    expect((await evaluate(narrowed)).value).toBe(403);
  });
});
