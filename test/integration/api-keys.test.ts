// Service API keys over REST (docs/api.md#service-api-keys): the secret once, never again (not in lists,
// audit events or stored rows), scopes and expiry, revocation at once, each change audited.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema/index.js";
import { secretHash } from "../../server/auth/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { ISO, restClient } from "../helpers/rest.js";

const KEYS = "/api/admin/api-keys";
type ApiKey = {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
};

describe("service API keys", () => {
  const t = useTestApp();
  const rest = restClient(t);
  const o = ofrep(t);

  it("creates a key whose secret is shown once: stored as a hash, absent from lists and from the audit event", async () => {
    const admin = await t().signUp({ admin: true });
    const mark = await auditMark(t().db.db);
    const created = await rest.ok<{ apiKey: ApiKey & { createdBy: unknown; createdAt: string }; secret: string }>(
      admin,
      { method: "POST", url: KEYS, payload: { name: "messaging-service", scopes: ["flags:read"] } },
      201,
    );
    expect(created.secret).toMatch(/^rk_[\w-]{43}$/);
    expect(created.apiKey).toEqual({
      id: expect.any(String),
      name: "messaging-service",
      producer: "messaging-service",
      scopes: ["flags:read"],
      prefix: created.secret.slice(0, 11),
      createdAt: expect.stringMatching(ISO),
      createdBy: { id: admin.id, email: admin.email },
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    const [row] = await t().db.db.select().from(apiKeys).where(eq(apiKeys.id, created.apiKey.id));
    expect(row!.secretHash).toBe(secretHash(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);

    const listed = await rest.ok<{ apiKeys: ApiKey[] }>(admin, { method: "GET", url: KEYS });
    expect(listed.apiKeys.find((k) => k.id === created.apiKey.id)).toEqual(created.apiKey);
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const events = await mark.since();
    expect(events.map((e) => [e.action, e.target])).toEqual([["apikey.create", { type: "apikey", id: created.apiKey.id }]]);
    expect(JSON.stringify(events)).not.toContain(created.secret);
    expect((await o.evaluate({ headers: { "x-api-key": created.secret }, body: forPro("pro-1") })).statusCode).toBe(200);
  });

  it("expires after expiresInDays; refuses unknown scopes, repeated scopes and blank names", async () => {
    const admin = await t().signUp({ admin: true });
    const before = Date.now();
    const { apiKey } = await rest.ok<{ apiKey: ApiKey }>(
      admin,
      { method: "POST", url: KEYS, payload: { name: "a", scopes: ["notifications:write"], expiresInDays: 30 } },
      201,
    );
    const days = (Date.parse(apiKey.expiresAt!) - before) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(30);
    expect(days).toBeLessThan(30.01);
    for (const [payload, field] of [
      [{ name: "a", scopes: ["flags:write"] }, "scopes.0"],
      [{ name: "a", scopes: ["flags:read", "flags:read"] }, "scopes"],
      [{ name: "a", scopes: [] }, "scopes"],
      [{ name: "  ", scopes: ["flags:read"] }, "name"],
      [{ name: "a", scopes: ["flags:read"], expiresInDays: 0 }, "expiresInDays"],
    ] as const) {
      const error = await rest.fails(admin, { method: "POST", url: KEYS, payload }, 400, "VALIDATION_ERROR");
      expect(error.details?.map((d) => d.field)).toEqual([field]);
    }
  });

  it("revokes at once: the key stops working, revoking again changes nothing, an unknown id is 404", async () => {
    const admin = await t().signUp({ admin: true });
    const { apiKey, secret } = await rest.ok<{ apiKey: ApiKey; secret: string }>(
      admin,
      { method: "POST", url: KEYS, payload: { name: "to revoke", scopes: ["flags:read"] } },
      201,
    );
    expect((await o.evaluate({ headers: { "x-api-key": secret }, body: forPro("pro-1") })).statusCode).toBe(200);
    const mark = await auditMark(t().db.db);
    const revoked = await rest.ok<{ apiKey: ApiKey }>(admin, { method: "DELETE", url: `${KEYS}/${apiKey.id}` });
    expect(revoked.apiKey.revokedAt).toMatch(ISO);
    expect((await o.evaluate({ headers: { "x-api-key": secret }, body: forPro("pro-1") })).statusCode).toBe(401);
    expect(await rest.ok(admin, { method: "DELETE", url: `${KEYS}/${apiKey.id}` })).toEqual(revoked);
    const events = await mark.since();
    expect(events.map((e) => e.action)).toEqual(["apikey.revoke"]);
    expect(events[0]!.before).toMatchObject({ revokedAt: null });
    await rest.fails(admin, { method: "DELETE", url: `${KEYS}/3b8f2f0e-8c1d-4c55-9a43-4f3e7d2a9b10` }, 404, "NOT_FOUND");
    await rest.fails(admin, { method: "DELETE", url: `${KEYS}/not-a-uuid` }, 404, "NOT_FOUND");
  });
});
