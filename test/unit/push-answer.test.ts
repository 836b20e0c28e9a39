import { describe, expect, it } from "vitest";
import { judgePushAnswer, type PushAnswer, type PushDeliveryResult, pushDeliveryResult } from "../../server/push/answer.js";

describe("judgePushAnswer: what a push service's answer means", () => {
  it.each([200, 201, 202, 204])("HTTP %d: delivered", (status) => {
    expect(judgePushAnswer({ status })).toEqual({ ok: true, gone: false });
  });

  it.each([404, 410])("HTTP %d: the subscription is gone, deactivate it", (status) => {
    expect(judgePushAnswer({ status })).toEqual({ ok: false, gone: true, error: `Subscription gone (HTTP ${status})` });
  });

  it.each([301, 400, 401, 403, 413, 429, 500, 502, 503])("HTTP %d: failed, subscription kept", (status) => {
    expect(judgePushAnswer({ status })).toEqual({
      ok: false,
      gone: false,
      error: `Push service answered HTTP ${status}`,
    });
  });

  it("a timeout fails this attempt only", () => {
    expect(judgePushAnswer({ failure: "timeout", message: "no answer within 500 ms" })).toEqual({
      ok: false,
      gone: false,
      error: "Timed out: no answer within 500 ms",
    });
  });

  it("a network error fails this attempt only", () => {
    expect(judgePushAnswer({ failure: "network", message: "ECONNREFUSED" })).toEqual({
      ok: false,
      gone: false,
      error: "Network error: ECONNREFUSED",
    });
  });
});

describe("pushDeliveryResult: the push_deliveries_total label of an answer", () => {
  const resultOf = (answer: PushAnswer) => pushDeliveryResult(answer, judgePushAnswer(answer));

  it.each<[PushAnswer, PushDeliveryResult]>([
    [{ status: 201 }, "delivered"],
    [{ status: 410 }, "gone"],
    [{ status: 404 }, "gone"],
    [{ status: 500 }, "failed"],
    [{ status: 429 }, "failed"],
    [{ failure: "timeout", message: "no answer within 500 ms" }, "failed"],
    [{ failure: "network", message: "ECONNREFUSED" }, "failed"],
    [{ failure: "address" }, "address_not_allowed"],
  ])("%j: %s", (answer, result) => {
    expect(resultOf(answer)).toBe(result);
  });
});
