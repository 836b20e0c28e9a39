// LOG_REQUESTS (issue AE): Fastify's two info lines a request ("incoming request", "request completed") were
// ~17 % of an OFREP evaluation's CPU with logging on. `completed`, the default, writes one line when the
// request is answered, with the request's fields; `both` keeps Fastify's two; `errors` logs answers of 400
// and up only. Every answer is still counted in the metrics whatever the mode.
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";

type Line = {
  msg?: string;
  reqId?: string;
  route?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  status?: number;
  path?: string;
  err?: { message?: string };
};

function capture() {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split("\n")) if (text.trim()) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { lines, logger: { level: "info", stream } };
}

const linesOf = (lines: Line[], reqId: string) => lines.filter((l) => l.reqId === reqId).map((l) => l.msg);

describe("LOG_REQUESTS", () => {
  const completed = capture();
  const both = capture();
  const errors = capture();
  const t = {
    completed: useTestApp({ logger: completed.logger }),
    both: useTestApp({ logger: both.logger, logRequests: "both" }),
    errors: useTestApp({ logger: errors.logger, logRequests: "errors" }),
  };

  it("completed (the default): one line per answer, with the request's method, URL and route and the status", async () => {
    await t.completed().app.inject({ url: "/health/live?token=secret-value", headers: { "x-request-id": "c-ok" } });
    await t.completed().app.inject({ url: "/nowhere", headers: { "x-request-id": "c-404" } });
    expect(linesOf(completed.lines, "c-ok")).toEqual(["request completed"]);
    expect(linesOf(completed.lines, "c-404")).toEqual(["request completed"]);
    const ok = completed.lines.find((l) => l.reqId === "c-ok")!;
    expect(ok).toMatchObject({
      route: "/health/live",
      req: { method: "GET", url: "/health/live?token=[redacted]" },
      res: { statusCode: 200 },
    });
  });

  it("both: Fastify's arrival line too", async () => {
    await t.both().app.inject({ url: "/health/live", headers: { "x-request-id": "b-ok" } });
    expect(linesOf(both.lines, "b-ok")).toEqual(["incoming request", "request completed"]);
  });

  it("errors: answers of 400 and up only", async () => {
    await t.errors().app.inject({ url: "/health/live", headers: { "x-request-id": "e-ok" } });
    await t.errors().app.inject({ url: "/nowhere", headers: { "x-request-id": "e-404" } });
    expect(linesOf(errors.lines, "e-ok")).toEqual([]);
    expect(linesOf(errors.lines, "e-404")).toEqual(["request completed"]);
  });

  it("an answer of 500 or more logs one error line with the status it answered, on either door", async () => {
    const admin = await t.completed().signUp({ admin: true });
    await t.completed().db.db.insert(pros).values({ id: "pro-log", name: "P" });
    // A fault of ours, not the database's absence: the table the activation writes is gone.
    await t.completed().db.db.execute(sql`alter table pro_restriction_status rename to pro_restriction_status_gone`);
    try {
      const rest = await t.completed().app.inject({
        method: "POST",
        url: "/api/admin/restriction/pro-log/activate",
        headers: { ...admin.headers, "x-request-id": "f-rest" },
      });
      const trpc = await t.completed().app.inject({
        method: "POST",
        url: "/trpc/restriction.activatePro",
        headers: { ...admin.headers, "content-type": "application/json", "x-request-id": "f-trpc" },
        payload: { json: { proId: "pro-log" } },
      });
      expect([rest.statusCode, trpc.statusCode]).toEqual([500, 500]);
    } finally {
      await t.completed().db.db.execute(sql`alter table pro_restriction_status_gone rename to pro_restriction_status`);
    }
    const failed = (reqId: string) => completed.lines.filter((l) => l.reqId === reqId && l.msg !== "request completed");
    expect(failed("f-rest")).toMatchObject([
      { msg: "request failed", status: 500, err: { message: expect.stringMatching(/pro_restriction_status/) } },
    ]);
    expect(failed("f-trpc")).toMatchObject([{ msg: "tRPC procedure failed", status: 500, path: "restriction.activatePro" }]);
  });
});
