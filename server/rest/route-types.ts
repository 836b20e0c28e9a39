// The type of a row of the REST table (routes.ts): method, path, the procedure it calls, where its input
// comes from, and the success status. Each row is checked against the procedure it names: the procedure path
// must be one of the router's, a query must be read with GET and a mutation with another method, a procedure
// that takes input must say where it comes from, a path-only input must be named by the URL's parameters,
// and a query string must say how to read every field of the procedure's input.
import type { IsQuery, ProcedureInput, ProcedurePath } from "../routers/index.js";

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** The query field that reads a value of type T: "number" or "strict-number" for a number, "text" for a string. */
type QueryFieldFor<T> = [Exclude<T, undefined>] extends [number]
  ? "number" | "strict-number"
  : [Exclude<T, undefined>] extends [string]
    ? "text"
    : never;

/** How to read each field of an input from the query string: every field, each by its type. */
type QueryFields<I> = { [K in keyof I & string]-?: QueryFieldFor<I[K]> };

/** A path with a `:key` parameter for every one of the keys. */
type PathNaming<K extends string> = (K extends string ? (path: `${string}/:${K}` | `${string}/:${K}/${string}`) => void : never) extends (
  path: infer Every,
) => void
  ? Every
  : never;

/**
 * Where the procedure's input comes from: the path parameters (`:id` → `id`) plus the JSON body's fields
 * ("body") or the query string's ("query", read as `query` says), or the path parameters alone ("path",
 * so the path names every field). Omitted exactly when the procedure takes no input.
 */
type InputSource<P extends ProcedurePath, I = Exclude<ProcedureInput<P>, void | undefined>> = [ProcedureInput<P>] extends [void]
  ? { input?: never; query?: never }
  :
      | { input: "body"; query?: never }
      | { input: "path"; path: PathNaming<keyof I & string>; query?: never }
      | { input: "query"; query: QueryFields<I> };

type RouteTo<P extends ProcedurePath> = {
  method: IsQuery<P> extends true ? "GET" : Exclude<Method, "GET">;
  /** Fastify path, mount point included. */
  path: string;
  /** The tRPC procedure, as `router.procedure`. */
  procedure: P;
  /** The OpenAPI operationId, where a second route calls the same procedure; the procedure otherwise. */
  operationId?: string;
  /** HTTP status of a success; 200 when omitted. */
  status?: 200 | 201;
  /**
   * A success that filed a change request for a second admin instead of acting (the answer carries a
   * `changeRequest`) answers 202 Accepted.
   */
  acceptedWhenRequested?: true;
  summary: string;
} & InputSource<P>;

/** A row of the table: one variant per procedure, so each row is checked against the procedure it names. */
export type RestRoute = { [P in ProcedurePath]: RouteTo<P> }[ProcedurePath];
