// Bad input on the audit log's checkpoint and proof routes, generated as for the other REST routes
// (test/helpers/bad-input*.ts); the export and the well-known key are Fastify routes of their own,
// refused in test/integration/audit-tlog-api.test.ts.
import { describe, it } from "vitest";
import { auditRoutes } from "../../server/rest/routes.js";
import { useBadInput } from "../helpers/bad-input.js";

describe("bad input on the audit log's REST routes", () => {
  const input = useBadInput();

  describe("every generated request: no 5xx, the contract's envelope, bad fields named, nothing changed if refused", () => {
    for (const route of auditRoutes.filter((r) => r.path !== "/api/admin/audit")) {
      it(`${route.method} ${route.path}`, () => input.holdsForGeneratedRequests(route), 120_000);
    }
  });
});
