// The authorization matrix for service API keys (docs/api.md#service-api-keys): every path that takes a key
// × every kind of key, and every path that takes a session with a key alone. A key counts on its own paths
// only; a session never counts there.
import { describe, expect, it } from "vitest";
import { restRoutes } from "../../server/rest/routes.js";
import { appRouter } from "../../server/routers/index.js";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { forPro, ofrep } from "../helpers/ofrep.js";

type KeyPersona = "none" | "unknown" | "revoked" | "expired" | "without the scope" | "with the scope" | "an admin's session";

/** The contract's answer on a path that needs `flags:read`. */
const expected: Record<KeyPersona, number> = {
  none: 401,
  unknown: 401,
  revoked: 401,
  expired: 401,
  "without the scope": 403,
  "with the scope": 200,
  "an admin's session": 401,
};

describe("authorization matrix: service API keys", () => {
  const t = useTestApp();
  const o = ofrep(t);

  async function personas(): Promise<Record<KeyPersona, Record<string, string>>> {
    const db = t().db.db;
    const admin = await t().signUp({ admin: true });
    return {
      none: {},
      unknown: { "x-api-key": "rk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      revoked: (await insertApiKey(db, { revokedAt: new Date() })).headers,
      expired: (await insertApiKey(db, { expiresAt: new Date(Date.now() - 1000) })).headers,
      "without the scope": (await insertApiKey(db, { scopes: ["notifications:write"] })).headers,
      "with the scope": (await insertApiKey(db, { scopes: ["flags:read"] })).headers,
      "an admin's session": admin.headers,
    };
  }

  it("OFREP single and bulk evaluation: 401, 403 or 200 by key, never by session", async () => {
    const callers = await personas();
    const answers: Record<string, [number, number]> = {};
    for (const [name, headers] of Object.entries(callers)) {
      const single = await o.evaluate({ headers, body: forPro("pro-1") });
      const bulk = await o.bulk({ headers, body: forPro("pro-1") });
      answers[name] = [single.statusCode, bulk.statusCode];
      if (single.statusCode !== 200) expect(typeof single.json().errorDetails, name).toBe("string");
    }
    expect(answers).toEqual(Object.fromEntries(Object.entries(expected).map(([name, status]) => [name, [status, status]])));
  });

  it("a key, whatever its scopes, is no session on any REST route or tRPC procedure: 401", async () => {
    const key: TestApiKey = await insertApiKey(t().db.db, { scopes: ["flags:read", "notifications:write"] });
    const refused: string[] = [];
    for (const route of restRoutes) {
      const url = route.path.replace(/:(\w+)/g, "x");
      const res = await t().app.inject({
        method: route.method,
        url,
        headers: { ...key.headers, "content-type": "application/json" },
        payload: "{}",
      });
      if (res.statusCode !== 401 || res.json().error.code !== "UNAUTHORIZED")
        refused.push(`${route.method} ${route.path}: ${res.statusCode}`);
    }
    type Procedure = { _def: { type: string } };
    for (const [path, procedure] of Object.entries(appRouter._def.procedures as unknown as Record<string, Procedure>)) {
      if (procedure._def.type === "subscription") continue;
      const res =
        procedure._def.type === "query"
          ? await t().app.inject({ method: "GET", url: `/trpc/${path}`, headers: key.headers })
          : await t().app.inject({
              method: "POST",
              url: `/trpc/${path}`,
              headers: { ...key.headers, "content-type": "application/json" },
              payload: "{}",
            });
      if (res.statusCode !== 401) refused.push(`trpc ${path}: ${res.statusCode}`);
    }
    expect(refused).toEqual([]);
    const stream = await t().app.inject({ method: "GET", url: "/api/notifications/stream", headers: key.headers });
    expect(stream.statusCode).toBe(401);
  });
});
