// Bad input on every notification REST route (and any other route outside the restriction area), generated
// with fast-check (test/helpers/bad-input*.ts): the same generators and rules as bad-input.restriction, with
// the inbox's own traps: someone else's notification ids, LIKE metacharacters in search, page and limit
// values, push endpoints and keys of every shape.
import { describe, it } from "vitest";
import { type RestRoute, restRoutes, restrictionRoutes, userRoutes } from "../../server/rest/routes.js";
import { useBadInput } from "../helpers/bad-input.js";

describe("bad input on the notification REST routes", () => {
  const input = useBadInput();

  describe("every generated request: no 5xx, the contract's envelope, bad fields named, unknown ids 404, no row changed if refused", () => {
    // Every route the restriction and account files do not take, so that none is left out.
    const elsewhere: readonly RestRoute[] = [...restrictionRoutes, ...userRoutes];
    for (const route of restRoutes.filter((r) => !elsewhere.includes(r))) {
      // A run takes a second or two; shrinking a failure, with the whole suite running beside it, far longer.
      it(`${route.method} ${route.path}`, () => input.holdsForGeneratedRequests(route), 120_000);
    }
  });

  it("left the other user's notifications untouched", () => input.expectOthersNotificationsUntouched());
});
