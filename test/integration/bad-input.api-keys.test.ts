// Bad input on the service API key routes, generated as for the restriction routes (test/helpers/bad-input*.ts).
import { describe, it } from "vitest";
import { apiKeyRoutes } from "../../server/rest/routes.js";
import { useBadInput } from "../helpers/bad-input.js";

describe("bad input on the API key REST routes", () => {
  const input = useBadInput();

  describe("every generated request: no 5xx, the contract's envelope, bad fields named, unknown ids 404, no row changed if refused", () => {
    for (const route of apiKeyRoutes) {
      it(`${route.method} ${route.path}`, () => input.holdsForGeneratedRequests(route), 120_000);
    }
  });
});
