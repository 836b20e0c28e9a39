// Bad input on every restriction REST route, generated with fast-check (test/helpers/bad-input*.ts): path ids,
// JSON bodies and query strings with wrong types, huge strings, deep nesting, unicode (NUL, lone surrogates),
// SQL and LIKE metacharacters, numbers at and past each limit, duplicated and extra fields, arrays where
// objects belong, malformed JSON and URLs. The notification routes are in bad-input.notifications.test.ts.
import { describe, expect, it } from "vitest";
import { restRoutes, restrictionRoutes } from "../../server/rest/routes.js";
import { routeKey, useBadInput } from "../helpers/bad-input.js";

describe("bad input on the restriction REST routes", () => {
  const input = useBadInput();

  it("has a generator for every REST route and none for anything else", () => {
    expect(Object.keys(input.models).sort()).toEqual(restRoutes.map(routeKey).sort());
  });

  describe("every generated request: no 5xx, the contract's envelope, bad fields named, unknown ids 404, no row changed if refused", () => {
    for (const route of restrictionRoutes) {
      // A run takes a second or two; shrinking a failure, with the whole suite running beside it, far longer.
      it(`${route.method} ${route.path}`, () => input.holdsForGeneratedRequests(route), 120_000);
    }
  });

  it("left the other user's notifications untouched", () => input.expectOthersNotificationsUntouched());
});
