// The tRPC door answers a single query or mutation itself (server/trpc/door.ts). Every answer must be the
// one tRPC's own Fastify plugin gives: the same status, body, content type and headers, for successes,
// each kind of error, and the requests the door hands to tRPC (batches, wrong methods, bad JSON).
import { request as httpRequest } from "node:http";
import type { TRPCError } from "@trpc/server";
import { fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import type { TRPCRequestInfo } from "@trpc/server/http";
import Fastify, { type FastifyInstance, type InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter, memoryRateLimitStore } from "../../server/http/rate-limit.js";
import { contextFactory } from "../../server/request-context.js";
import { appRouter } from "../../server/routers/index.js";
import { registerTrpcDoor, singleCall, trpcErrorHeaders } from "../../server/trpc/door.js";
import { type TestUser, useTestApp } from "../helpers/app.js";

const input = (value: unknown) => encodeURIComponent(JSON.stringify({ json: value }));

describe("the tRPC door", () => {
  const t = useTestApp();
  let door: FastifyInstance;
  let reference: FastifyInstance;
  let user: TestUser;
  let admin: TestUser;
  let notificationId: string;
  /** Who answered the door's last request: the door itself, or tRPC's handler behind it. */
  let answeredBy: "door" | "tRPC" | undefined;
  /** What each handler's onError was told, per request: the procedure and the error's code. */
  const errorsSeen = { door: [] as string[], reference: [] as string[] };
  let seenBy: keyof typeof errorsSeen = "reference";

  beforeAll(async () => {
    // Test pushes are over their limit at once: a 429 with Retry-After from the procedure chain.
    const rateLimits = { testPush: createRateLimiter(memoryRateLimitStore, "door-test-push", { max: 0, timeWindowMs: 60_000 }) };
    const createContext = contextFactory({ db: t().db.db, push: t().push, rateLimits }, t().auth);
    const trpcOptions = {
      router: appRouter,
      createContext: ({ req }: { req: Parameters<typeof createContext>[0] }) => {
        // A header the test sets stands for a context that cannot be made (its database lookup failed, say).
        if (req.headers["x-fail-context"]) throw new Error("context failed");
        return createContext(req);
      },
      onError: ({ error, path }: { error: TRPCError; path?: string }) => void errorsSeen[seenBy].push(`${path}: ${error.code}`),
    };
    door = Fastify();
    await registerTrpcDoor(door, "/trpc", trpcOptions);
    door.addHook("preHandler", async (request) => {
      answeredBy = singleCall(appRouter, request, (request.params as { path: string }).path) ? "door" : "tRPC";
    });
    reference = Fastify();
    await reference.register(fastifyTRPCPlugin, {
      prefix: "/trpc",
      trpcOptions: {
        ...trpcOptions,
        responseMeta: ({ errors }: { errors: Parameters<typeof trpcErrorHeaders>[0] }) => ({ headers: trpcErrorHeaders(errors) }),
      },
    });
    user = await t().signUp();
    admin = await t().signUp({ admin: true });
    await t().caller(admin).notifications.testInApp({ type: "message.received", title: "Hello", body: "b", targetUserId: user.id });
    notificationId = (await t().caller(user).notifications.list()).notifications[0]!.id;
  });
  afterAll(async () => {
    await door?.close();
    await reference?.close();
  });

  /** The parts of an answer a client sees. */
  async function answerOf(app: FastifyInstance, request: InjectOptions) {
    const res = await app.inject(request);
    return {
      status: res.statusCode,
      body: res.body === "" ? null : (JSON.parse(res.body) as unknown),
      contentType: res.headers["content-type"],
      vary: res.headers.vary,
      allow: res.headers.allow,
      retryAfter: res.headers["retry-after"],
    };
  }

  const asUser = () => user.headers;
  const asAdmin = () => admin.headers;
  const json = { "content-type": "application/json" };
  const cases: [string, "door" | "tRPC", () => InjectOptions][] = [
    ["a query without a session", "door", () => ({ method: "GET", url: "/trpc/notifications.unreadCount" })],
    ["a query", "door", () => ({ method: "GET", url: "/trpc/notifications.unreadCount", headers: asUser() })],
    [
      "a query with input",
      "door",
      () => ({ method: "GET", url: `/trpc/notifications.list?input=${input({ page: 1, limit: 5 })}`, headers: asUser() }),
    ],
    [
      "a query with bad input",
      "door",
      () => ({ method: "GET", url: `/trpc/notifications.list?input=${input({ limit: "many" })}`, headers: asUser() }),
    ],
    ["a query with dates in its answer", "door", () => ({ method: "GET", url: "/trpc/restriction.listActive", headers: asAdmin() })],
    [
      "an admin query as a user",
      "door",
      () => ({ method: "GET", url: `/trpc/restriction.getPro?input=${input({ proId: "p-1" })}`, headers: asUser() }),
    ],
    [
      "a mutation",
      "door",
      () => ({
        method: "POST",
        url: "/trpc/notifications.markRead",
        headers: { ...asUser(), ...json },
        payload: JSON.stringify({ json: { id: notificationId } }),
      }),
    ],
    [
      "a mutation on someone else's record",
      "door",
      () => ({
        method: "POST",
        url: "/trpc/notifications.markRead",
        headers: { ...asAdmin(), ...json },
        payload: JSON.stringify({ json: { id: notificationId } }),
      }),
    ],
    ["a mutation with no body", "tRPC", () => ({ method: "POST", url: "/trpc/notifications.markRead", headers: asUser() })],
    [
      "a mutation with an empty JSON body",
      "door",
      () => ({ method: "POST", url: "/trpc/notifications.markRead", headers: { ...asUser(), ...json }, payload: "" }),
    ],
    [
      "a mutation of an unknown id",
      "door",
      () => ({
        method: "POST",
        url: "/trpc/notifications.remove",
        headers: { ...asUser(), ...json },
        payload: JSON.stringify({ json: { id: "00000000-0000-4000-8000-000000000000" } }),
      }),
    ],
    ["input that is not JSON", "tRPC", () => ({ method: "GET", url: "/trpc/notifications.list?input=%7Bnope", headers: asUser() })],
    [
      "input whose superjson meta cannot be read",
      "tRPC",
      () => ({
        method: "GET",
        url: `/trpc/notifications.list?input=${encodeURIComponent(JSON.stringify({ json: {}, meta: { values: { messages: ["bigint"] } } }))}`,
        headers: asUser(),
      }),
    ],
    [
      "a mutation whose superjson meta walks into __proto__",
      "tRPC",
      () => ({
        method: "POST",
        url: "/trpc/notifications.markAllRead",
        headers: { ...asUser(), ...json },
        payload: JSON.stringify({ json: {}, meta: { values: { "__proto__.polluted": ["Date"] } } }),
      }),
    ],
    ["a query sent as POST", "tRPC", () => ({ method: "POST", url: "/trpc/notifications.unreadCount", headers: asUser() })],
    ["a mutation sent as GET", "tRPC", () => ({ method: "GET", url: "/trpc/notifications.markRead", headers: asUser() })],
    ["an unknown procedure", "tRPC", () => ({ method: "GET", url: "/trpc/notifications.nope", headers: asUser() })],
    [
      "a mutation over its rate limit (429, Retry-After)",
      "door",
      () => ({
        method: "POST",
        url: "/trpc/notifications.testPush",
        headers: { ...asAdmin(), ...json },
        payload: JSON.stringify({ json: { type: "system.door", title: "Door", targetUserId: user.id } }),
      }),
    ],
    [
      "a query whose context cannot be made",
      "door",
      () => ({ method: "GET", url: "/trpc/notifications.unreadCount", headers: { ...asUser(), "x-fail-context": "1" } }),
    ],
    [
      "a batch",
      "tRPC",
      () => ({
        method: "GET",
        url: `/trpc/notifications.unreadCount,notifications.list?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: { json: { limit: 1 } } }))}`,
        headers: asUser(),
      }),
    ],
  ];

  it.each(cases)("answers %s as tRPC's own handler does (answered by: %s), and tells onError the same", async (_name, by, request) => {
    errorsSeen.door = [];
    errorsSeen.reference = [];
    seenBy = "reference";
    const expected = await answerOf(reference, request());
    answeredBy = undefined;
    seenBy = "door";
    expect(await answerOf(door, request())).toEqual(expected);
    expect(answeredBy).toBe(by);
    expect(errorsSeen.door).toEqual(errorsSeen.reference);
  });

  it("the rate-limited case is a 429 with Retry-After, and the context case reaches onError", async () => {
    const limited = await answerOf(door, cases.find(([name]) => name.startsWith("a mutation over its rate limit"))![2]());
    expect({ status: limited.status, retryAfter: limited.retryAfter }).toEqual({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
    errorsSeen.door = [];
    seenBy = "door";
    await answerOf(door, cases.find(([name]) => name.startsWith("a query whose context"))![2]());
    expect(errorsSeen.door).toEqual(["notifications.unreadCount: INTERNAL_SERVER_ERROR"]);
  });
});

describe("the tRPC door's request info", () => {
  it("gives createContext a real info, whose signal aborts when the client goes away before its answer", async () => {
    let seen: TRPCRequestInfo | undefined;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const app = Fastify();
    await registerTrpcDoor(app, "/trpc", {
      router: appRouter,
      createContext: async ({ info }) => {
        seen = info;
        await held;
        throw new Error("not needed: the client is gone");
      },
    });
    const url = new URL(await app.listen({ port: 0, host: "127.0.0.1" }));
    try {
      const req = httpRequest({ host: url.hostname, port: url.port, path: "/trpc/notifications.unreadCount", method: "GET" });
      req.on("error", () => {});
      req.end();
      await expect.poll(() => seen).toBeDefined();
      expect({
        type: seen!.type,
        isBatchCall: seen!.isBatchCall,
        paths: seen!.calls.map((c) => c.path),
        aborted: seen!.signal.aborted,
      }).toEqual({
        type: "query",
        isBatchCall: false,
        paths: ["notifications.unreadCount"],
        aborted: false,
      });
      req.destroy();
      await expect.poll(() => seen!.signal.aborted).toBe(true);
    } finally {
      release();
      await app.close();
    }
  });
});
