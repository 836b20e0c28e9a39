// A tRPC input whose superjson envelope is malformed (a `meta` naming a type its value cannot have, a
// `__proto__` key) is the caller's mistake: 400 BAD_REQUEST in tRPC's shape, before anything else runs, and
// never an error-level log line. Both doors: a single call (server/trpc/door.ts) and tRPC's own batch handler.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

const lines: { level: number; msg: string }[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    lines.push(JSON.parse(String(chunk)) as { level: number; msg: string });
    done();
  },
});
/** pino's level numbers: warn is 40, error 50. */
const ERROR = 50;

/** Superjson envelopes that cannot be read: each named for what is wrong with it. */
const MALFORMED: [string, string][] = [
  ["a bigint annotation on an absent value", JSON.stringify({ json: { category: "x" }, meta: { values: { messages: ["bigint"] } } })],
  ["a __proto__ path in meta", JSON.stringify({ json: {}, meta: { values: { "__proto__.polluted": ["Date"] } } })],
  ["an unknown type name", JSON.stringify({ json: { category: "x" }, meta: { values: { category: ["no-such-type"] } } })],
  ["a __proto__ key in the value", '{"json":{"__proto__":{"polluted":1}},"meta":{"values":{"__proto__":["undefined"]}}}'],
];

describe("a malformed superjson input", () => {
  const t = useTestApp({ logger: { level: "info", stream: logStream } });

  type Shape = { error?: { json: { data: { code: string; httpStatus: number } } } };
  const codeOf = (body: unknown) => (body as Shape).error?.json.data.code;

  // As tRPC's own handler does for any input, authentication comes first: a stranger gets 401, never a 500.
  it.each(MALFORMED)("%s: a single GET query answers 400 BAD_REQUEST (401 to a stranger)", async (_what, input) => {
    const user = await t().signUp();
    const url = `/trpc/notifications.list?input=${encodeURIComponent(input)}`;
    const res = await t().app.inject({ method: "GET", url, headers: user.headers });
    expect(res.statusCode, res.body).toBe(400);
    expect(codeOf(res.json())).toBe("BAD_REQUEST");
    const stranger = await t().app.inject({ method: "GET", url });
    expect(stranger.statusCode, stranger.body).toBe(401);
    expect(codeOf(stranger.json())).toBe("UNAUTHORIZED");
  });

  it.each(MALFORMED)("%s: a single POST mutation answers 400 BAD_REQUEST (401 to a stranger)", async (_what, input) => {
    const user = await t().signUp();
    const post = (headers: Record<string, string>) =>
      t().app.inject({
        method: "POST",
        url: "/trpc/notifications.markAllRead",
        headers: { ...headers, "content-type": "application/json" },
        payload: input,
      });
    const res = await post(user.headers);
    expect(res.statusCode, res.body).toBe(400);
    expect(codeOf(res.json())).toBe("BAD_REQUEST");
    expect((await post({})).statusCode).toBe(401);
  });

  it.each(MALFORMED)("%s: in a batch, on GET and POST, that call answers BAD_REQUEST", async (_what, input) => {
    const user = await t().signUp();
    const batch = JSON.stringify({ 0: JSON.parse(input) });
    const get = await t().app.inject({
      method: "GET",
      url: `/trpc/notifications.list?batch=1&input=${encodeURIComponent(batch)}`,
      headers: user.headers,
    });
    const post = await t().app.inject({
      method: "POST",
      url: "/trpc/notifications.markAllRead?batch=1",
      headers: { ...user.headers, "content-type": "application/json" },
      payload: batch,
    });
    for (const res of [get, post]) {
      expect(res.statusCode, res.body).toBe(400);
      expect((res.json() as unknown[]).map(codeOf)).toEqual(["BAD_REQUEST"]);
    }
  });

  // issue X: superjson walked a 1 MB string in meta.values into itself, ~2 s of blocked event loop for
  // "Maximum call stack size exceeded". The meta is now checked before superjson reads it.
  it("a 1 MB string as meta.values answers 400 BAD_REQUEST saying the meta is malformed, single call or batch", async () => {
    const user = await t().signUp();
    const input = { json: {}, meta: { values: "x".repeat(1024 * 1024 - 100), v: 1 } };
    const post = (url: string, payload: unknown) =>
      t().app.inject({
        method: "POST",
        url,
        headers: { ...user.headers, "content-type": "application/json" },
        payload: JSON.stringify(payload),
      });
    type Failure = { error: { json: { message: string; data: { code: string } } } };
    const single = await post("/trpc/notifications.markAllRead", input);
    const batch = await post("/trpc/notifications.markAllRead?batch=1", { 0: input });
    expect(single.statusCode, single.body.slice(0, 200)).toBe(400);
    expect(batch.statusCode, batch.body.slice(0, 200)).toBe(400);
    for (const failure of [single.json() as Failure, (batch.json() as Failure[])[0]!]) {
      expect(failure.error.json.data.code).toBe("BAD_REQUEST");
      expect(failure.error.json.message).toBe("Malformed superjson meta: values must be an object of paths or [type]");
    }
  });

  it("leaves no error-level log line and pollutes no prototype", async () => {
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level >= ERROR).map((l) => l.msg)).toEqual([]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
