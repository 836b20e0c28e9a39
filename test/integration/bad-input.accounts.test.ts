// Bad input on the account routes (docs/api.md#accounts), generated as for the restriction routes
// (test/helpers/bad-input*.ts): strict bodies, ids that are one string, roles user or admin, no NUL.
import { describe, it } from "vitest";
import { userRoutes } from "../../server/rest/routes.js";
import { useBadInput } from "../helpers/bad-input.js";

describe("bad input on the account REST routes", () => {
  const input = useBadInput();

  describe("every generated request: no 5xx, the contract's envelope, bad fields named, unknown ids 404, no row changed if refused", () => {
    for (const route of userRoutes) {
      it(`${route.method} ${route.path}`, () => input.holdsForGeneratedRequests(route), 180_000);
    }
  });
});
