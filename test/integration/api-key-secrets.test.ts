// An API key's secret is shown once (docs/api.md#service-api-keys): a replay of its creation with the same
// Idempotency-Key answers 409 with the key and without the secret, and no table of the database holds a
// secret, whichever way the key was made.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { everyRow } from "../helpers/db-dump.js";

const KEYS = "/api/admin/api-keys";
const REPLAYED = { code: "CONFLICT", message: "The key was created; its secret is shown once" };

describe("an API key's secret", () => {
  const t = useTestApp();
  const create = (admin: TestUser, payload: object, idempotencyKey?: string) =>
    t().app.inject({
      method: "POST",
      url: KEYS,
      headers: { ...admin.headers, ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      payload,
    });

  it("is not replayed: the same Idempotency-Key answers 409 with the key made, without its secret, and makes no other key", async () => {
    const admin = await t().signUp({ admin: true });
    const retryKey = `create-${randomBytes(6).toString("hex")}`;
    const payload = { name: `replayed-${randomBytes(3).toString("hex")}`, scopes: ["flags:read"] };
    const first = await create(admin, payload, retryKey);
    expect(first.statusCode).toBe(201);
    const { apiKey, secret } = first.json().data as { apiKey: { id: string }; secret: string };

    for (let i = 0; i < 2; i++) {
      const again = await create(admin, payload, retryKey);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect({ status: again.statusCode, body: again.json() }).toEqual({
        status: 409,
        body: { success: false, error: { ...REPLAYED, details: { apiKey } } },
      });
      expect(again.body).not.toContain(secret);
    }
    const listed = (await t().app.inject({ method: "GET", url: KEYS, headers: admin.headers })).json().data as {
      apiKeys: { name: string }[];
    };
    expect(listed.apiKeys.filter((k) => k.name === payload.name)).toHaveLength(1);
    // Another body under the same key is still the caller's mistake (422), not a way to read anything.
    expect((await create(admin, { ...payload, name: "other" }, retryKey)).statusCode).toBe(422);
  });

  it("is in no table, for keys made over REST with and without an Idempotency-Key and over tRPC", async () => {
    const admin = await t().signUp({ admin: true });
    const secrets: string[] = [];
    for (const retryKey of [undefined, `dump-${randomBytes(6).toString("hex")}`]) {
      const res = await create(admin, { name: `dump-${randomBytes(3).toString("hex")}`, scopes: ["notifications:write"] }, retryKey);
      expect(res.statusCode).toBe(201);
      secrets.push((res.json().data as { secret: string }).secret);
    }
    const trpc = await t().app.inject({
      method: "POST",
      url: "/trpc/apiKeys.create",
      headers: { ...admin.headers, "content-type": "application/json" },
      payload: { json: { name: `dump-${randomBytes(3).toString("hex")}`, scopes: ["flags:read"] } },
    });
    expect(trpc.statusCode).toBe(200);
    secrets.push((trpc.json() as { result: { data: { json: { secret: string } } } }).result.data.json.secret);

    const dump = await everyRow(t().db.db);
    expect(dump).toContain("public.idempotency_keys\n");
    expect(dump).toContain("public.api_keys\n");
    expect(dump).toContain(secrets[0]!.slice(0, 11)); // the prefix is kept, to recognise a key
    for (const secret of secrets) {
      expect(secret).toMatch(/^rk_[\w-]{43}$/);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(11));
    }
  });
});
