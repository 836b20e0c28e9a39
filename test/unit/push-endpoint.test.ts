import { describe, expect, it } from "vitest";
import { mapWithConcurrency } from "../../server/push/concurrency.js";
import { endpointProblem } from "../../server/push/endpoint.js";

describe("endpointProblem: https only, http when allowed", () => {
  it("accepts an https URL", () => {
    expect(endpointProblem("https://fcm.googleapis.com/fcm/send/abc", false)).toBeNull();
  });

  it.each([
    ["http://127.0.0.1:9/push", "must be an https: URL"],
    ["ftp://example.com/x", "must be an https: URL"],
    ["file:///etc/passwd", "must be an https: URL"],
    ["javascript:alert(1)", "must be an https: URL"],
    ["/relative/path", "must be an absolute URL"],
    ["not a url", "must be an absolute URL"],
    ["https://user:secret@push.example.com/x", "must not contain credentials"],
  ])("refuses %j", (endpoint, problem) => {
    expect(endpointProblem(endpoint, false)).toBe(problem);
  });

  it("admits http: only with allowHttp", () => {
    expect(endpointProblem("http://127.0.0.1:9/push", true)).toBeNull();
    expect(endpointProblem("ftp://example.com/x", true)).toBe("must be an http: or https: URL");
  });
});

describe("mapWithConcurrency", () => {
  it("keeps the input order and never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const out = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, n * 2));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });

  it("handles no items", async () => {
    expect(await mapWithConcurrency([], 10, async () => 1)).toEqual([]);
  });
});
