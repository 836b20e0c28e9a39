// ADMIN_EMAILS admins are named by their address (docs/operators.md#who-may-become-an-admin): they were all
// "Admin", so the console's Users view showed rows nobody could tell apart. ADMIN_EMAIL keeps ADMIN_NAME.
import { randomBytes } from "node:crypto";
import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { ensureBootstrapAdmin } from "../../server/auth/admin-bootstrap.js";
import { loadConfig } from "../../server/config.js";
import { useTestApp } from "../helpers/app.js";

const t = useTestApp();

describe("start-up admins' names", () => {
  it("an ADMIN_EMAILS account is named by its address; the ADMIN_EMAIL account by ADMIN_NAME", async () => {
    const suffix = randomBytes(4).toString("hex");
    const [ops, first, second] = [`ops-${suffix}@test.local`, `first-${suffix}@test.local`, `second-${suffix}@test.local`];
    const config = loadConfig({
      ADMIN_EMAIL: ops,
      ADMIN_NAME: "Ops",
      ADMIN_EMAILS: `${first},${second}`,
      ADMIN_PASSWORD: "a-long-admin-password",
    });
    for (const admin of config.bootstrapAdmins) await ensureBootstrapAdmin(t().db.db, t().auth, admin);
    const rows = await t()
      .db.db.select({ email: users.email, name: users.name, role: users.role })
      .from(users)
      .where(inArray(users.email, [ops, first, second]));
    expect(rows.sort((a, b) => a.email.localeCompare(b.email))).toEqual(
      [
        { email: ops, name: "Ops", role: "admin" },
        { email: first, name: first, role: "admin" },
        { email: second, name: second, role: "admin" },
      ].sort((a, b) => a.email.localeCompare(b.email)),
    );
  });
});
