// LOG_REQUESTS (issue AE): Fastify's two info lines a request ("incoming request", "request completed") were
// ~17 % of an OFREP evaluation's CPU with logging on. `completed`, the default, writes one line when the
// request is answered, with the request's fields; `both` keeps Fastify's two; `errors` logs answers of 400
// and up only. Every answer is still counted in the metrics whatever the mode.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

type Line = { msg?: string; reqId?: string; route?: string; req?: { method?: string; url?: string }; res?: { statusCode?: number } };

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
});
