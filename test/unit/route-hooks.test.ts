// server/http/route-hooks.ts: a hook given to some routes runs on those alone, after the app-wide hooks of
// its kind, for routes declared in plugins too, and beside a route's own hooks.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { addRouteHook, isAuthRoute, routeMethods } from "../../server/http/route-hooks.js";

async function appWithTrace() {
  const app = Fastify();
  const ran: string[] = [];
  app.addHook("preHandler", async (request) => void ran.push(`app-wide ${request.url}`));
  addRouteHook(app, "preHandler", isAuthRoute, async (request) => void ran.push(`scoped ${request.url}`));
  addRouteHook(
    app,
    "onSend",
    (route) => routeMethods(route).includes("POST"),
    (request, _reply, payload, done) => {
      ran.push(`onSend ${request.method} ${request.url}`);
      done(null, payload);
    },
  );
  app.route({ method: ["GET", "POST"], url: "/api/auth/*", handler: async () => "auth" });
  app.get("/ofrep/v1/x", { preHandler: async () => void ran.push("own /ofrep/v1/x") }, async () => "ofrep");
  await app.register(async (child) => child.post("/api/auth-like", async () => "not auth"));
  await app.register(async (child) => child.get("/api/auth/nested", async () => "nested"));
  return { app, ran };
}

describe("hooks given to some routes", () => {
  it("run on the matching routes alone, after the app-wide hooks, plugins' routes included", async () => {
    const { app, ran } = await appWithTrace();
    for (const url of ["/api/auth/sign-in", "/ofrep/v1/x", "/api/auth/nested"]) await app.inject({ url });
    await app.inject({ method: "POST", url: "/api/auth-like" });
    expect(ran).toEqual([
      "app-wide /api/auth/sign-in",
      "scoped /api/auth/sign-in",
      // One route serving GET and POST gets the hook for both: the hook itself still looks at the request.
      "onSend GET /api/auth/sign-in",
      "app-wide /ofrep/v1/x",
      "own /ofrep/v1/x",
      "app-wide /api/auth/nested",
      "scoped /api/auth/nested",
      "app-wide /api/auth-like",
      "onSend POST /api/auth-like",
    ]);
  });

  it("keep a route's own hooks of the same kind, which run first", async () => {
    const app = Fastify();
    const ran: string[] = [];
    addRouteHook(
      app,
      "preHandler",
      () => true,
      async () => void ran.push("scoped"),
    );
    app.get("/one", { preHandler: [async () => void ran.push("own")] }, async () => "ok");
    expect((await app.inject({ url: "/one" })).body).toBe("ok");
    expect(ran).toEqual(["own", "scoped"]);
  });
});
