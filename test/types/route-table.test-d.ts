// Type-level tests of the REST route table, checked by `npm run typecheck` (tsc): a row naming a procedure
// the router does not have, or disagreeing with the procedure it names, does not compile.
import { expectTypeOf } from "vitest";
import type { RestRoute } from "../../server/rest/routes.js";
import type { ProcedureInput, ProcedurePath } from "../../server/routers/index.js";
import type { notificationsContract } from "../../server/routers/notifications/contract.js";
import type { restrictionContract } from "../../server/routers/restriction/contract.js";

// Rows that name procedures of the router, with their methods and input sources.
[
  { method: "GET", path: "/cohorts", procedure: "restriction.listCohorts", summary: "List" },
  { method: "POST", path: "/cohorts", procedure: "restriction.createCohort", input: "body", summary: "Create" },
  { method: "GET", path: "/pros/:proId", procedure: "restriction.getPro", input: "path", summary: "Read" },
  {
    method: "PATCH",
    path: "/read-all",
    procedure: "notifications.markAllRead",
    input: "query",
    query: { category: "text" },
    summary: "Mark",
  },
] satisfies RestRoute[];

// @ts-expect-error: the router has no procedure restriction.nope
[{ method: "GET", path: "/nope", procedure: "restriction.nope", summary: "Nope" }] satisfies RestRoute[];

// @ts-expect-error: listCohorts is a query, read with GET only
[{ method: "POST", path: "/cohorts", procedure: "restriction.listCohorts", summary: "List" }] satisfies RestRoute[];

// @ts-expect-error: createCohort is a mutation, never a GET
[{ method: "GET", path: "/cohorts", procedure: "restriction.createCohort", input: "body", summary: "Create" }] satisfies RestRoute[];

// @ts-expect-error: createCohort takes input, so the row must say where it comes from
[{ method: "POST", path: "/cohorts", procedure: "restriction.createCohort", summary: "Create" }] satisfies RestRoute[];

// @ts-expect-error: listCohorts takes no input
[{ method: "GET", path: "/cohorts", procedure: "restriction.listCohorts", input: "query", summary: "List" }] satisfies RestRoute[];

// @ts-expect-error: getPro takes proId, so a path-only input needs :proId in the path
[{ method: "GET", path: "/pros/:id", procedure: "restriction.getPro", input: "path", summary: "Read" }] satisfies RestRoute[];

[
  // @ts-expect-error: the query string must say how to read every field of markAllRead's input
  { method: "PATCH", path: "/read-all", procedure: "notifications.markAllRead", input: "query", query: {}, summary: "Mark" },
] satisfies RestRoute[];

[
  {
    method: "GET",
    path: "/",
    procedure: "notifications.list",
    input: "query",
    // @ts-expect-error: list's page is a number, not text
    query: { category: "text", search: "text", page: "text", limit: "number" },
    summary: "List",
  },
] satisfies RestRoute[];

// The paths are the router's, derived from its type.
expectTypeOf<"restriction.createCohort">().toExtend<ProcedurePath>();
expectTypeOf<"notifications.testPush">().toExtend<ProcedurePath>();
expectTypeOf<"restriction.nope">().not.toExtend<ProcedurePath>();
expectTypeOf<"restriction">().not.toExtend<ProcedurePath>();

// Every procedure that takes input has its schema in its router's contract (which the REST reference reads).
type TakingInput<R extends string> = {
  [P in ProcedurePath]: P extends `${R}.${infer Name}` ? ([ProcedureInput<P>] extends [void] ? never : Name) : never;
}[ProcedurePath];
type WithInputSchema<C> = { [K in keyof C]: C[K] extends { input: object } ? K : never }[keyof C];
expectTypeOf<WithInputSchema<typeof restrictionContract>>().toEqualTypeOf<TakingInput<"restriction">>();
expectTypeOf<WithInputSchema<typeof notificationsContract>>().toEqualTypeOf<TakingInput<"notifications">>();
