// Bad-input models of the audit log's proof routes (docs/api.md#audit-log), beside bad-input-models.ts.
// Counts are whole numbers from 0 up to 2^53 − 1; a tree beyond the log's size is a 404, not bad input.
import fc from "fast-check";
import type { QueryModel } from "./bad-input-arbitraries.js";
import type { RouteModel } from "./bad-input-models.js";

const NOT_COUNTS = ["", "-1", "1.5", "abc", "1e400", "9007199254740992", " "];

const count = (min: number, required = true): QueryModel[string] => ({
  exact: true,
  required,
  valid: fc.oneof(fc.integer({ min, max: 8 }), fc.constant(Number.MAX_SAFE_INTEGER)).map(String),
  invalid: fc.constantFrom(...NOT_COUNTS, ...(min > 0 ? ["0"] : [])),
});

export const auditLogModels: Record<string, RouteModel> = {
  "GET /api/admin/audit/checkpoint": {},
  "GET /api/admin/audit/proof/inclusion": { query: () => ({ leafIndex: count(0), treeSize: count(1) }) },
  "GET /api/admin/audit/proof/consistency": { query: () => ({ from: count(0), to: count(0) }) },
};
