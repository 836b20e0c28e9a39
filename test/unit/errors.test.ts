// The error mapper, table-driven: what each thing a request can fail with becomes (toAppError), and how
// each door answers it (the tRPC code of a ProcedureError, the REST status and body).
import { TRPCError } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toAppError } from "../../server/errors/error-mapper.js";
import { AppError, type ErrorKind, TooManyRequestsError, VapidNotConfiguredError } from "../../server/errors/errors.js";
import { toRestError } from "../../server/errors/rest.js";
import { ProcedureError } from "../../server/errors/trpc.js";

const INTERNAL = { status: 500, kind: "INTERNAL_ERROR", message: "Internal server error" } as const;
const UNAVAILABLE = {
  status: 503,
  kind: "SERVICE_UNAVAILABLE",
  message: "The database is unavailable; try again shortly",
} as const;

const CONCURRENT = {
  status: 503,
  kind: "SERVICE_UNAVAILABLE",
  message: "A concurrent change got in the way and nothing was written; send the request again",
} as const;
const UNKNOWN = {
  status: 503,
  kind: "SERVICE_UNAVAILABLE",
  message:
    "The database connection was lost while the change was being committed: it may have been applied. Retry with the same Idempotency-Key to learn which",
} as const;

/** An error as a driver raises it: the server's message (never to be shown) and a code. */
const driverError = (code: string, message = `select secret from users; driver said ${code}`) =>
  Object.assign(new Error(message), { code });

const mapped = (err: unknown) => {
  const e = toAppError(err);
  return { status: e.status, kind: e.kind, message: e.message };
};

describe("toAppError: SQLSTATEs", () => {
  it.each([
    ["08000 connection exception", "08000", UNAVAILABLE],
    ["08001 cannot connect", "08001", UNAVAILABLE],
    ["08003 connection does not exist", "08003", UNAVAILABLE],
    ["08006 connection failure", "08006", UNAVAILABLE],
    ["28000 invalid authorization", "28000", UNAVAILABLE],
    ["28P01 invalid password", "28P01", UNAVAILABLE],
    ["57P01 admin shutdown", "57P01", UNAVAILABLE],
    ["57P02 crash shutdown", "57P02", UNAVAILABLE],
    ["57P03 cannot connect now", "57P03", UNAVAILABLE],
    ["53300 too many connections", "53300", UNAVAILABLE],
    ["55000 not accepting connections", "55000", UNAVAILABLE],
    ["3D000 no such database", "3D000", UNAVAILABLE],
    ["57014 cancelled at its deadline, or by statement_timeout", "57014", UNAVAILABLE],
    ["40P01 deadlock detected", "40P01", CONCURRENT],
    ["40001 serialization failure", "40001", CONCURRENT],
    ["23505 unique violation", "23505", { status: 409, kind: "CONFLICT", message: "The record already exists" }],
    [
      "22021 bad byte sequence",
      "22021",
      { status: 400, kind: "VALIDATION_ERROR", message: "Input contains characters that cannot be stored" },
    ],
    [
      "22P05 untranslatable character",
      "22P05",
      { status: 400, kind: "VALIDATION_ERROR", message: "Input contains characters that cannot be stored" },
    ],
    ["57P04 (not in the 57P01-3 range)", "57P04", INTERNAL],
    ["42P01 undefined table (unknown to the mapper)", "42P01", INTERNAL],
    ["23503 foreign key violation (unknown to the mapper)", "23503", INTERNAL],
  ])("%s", (_case, code, expected) => {
    expect(mapped(driverError(code))).toEqual(expected);
  });

  it("a COMMIT whose answer was lost (db/deadline.ts): 503 whose details say the outcome is unknown", () => {
    const lost = Object.assign(new Error("lost"), { code: "OUTCOME_UNKNOWN", cause: driverError("CONNECTION_CLOSED") });
    expect(mapped(lost)).toEqual(UNKNOWN);
    expect(toAppError(lost).details).toEqual({ outcome: "unknown" });
    expect(toRestError(lost).body).toEqual({
      success: false,
      error: { code: "SERVICE_UNAVAILABLE", message: UNKNOWN.message, details: { outcome: "unknown" } },
    });
  });
});

describe("toAppError: driver codes", () => {
  it.each([
    ["ECONNREFUSED", UNAVAILABLE],
    ["ECONNRESET", UNAVAILABLE],
    ["EPIPE", UNAVAILABLE],
    ["ETIMEDOUT", UNAVAILABLE],
    ["CONNECTION_CLOSED", UNAVAILABLE],
    ["CONNECTION_ENDED", UNAVAILABLE],
    ["CONNECTION_DESTROYED", UNAVAILABLE],
    ["CONNECT_TIMEOUT", UNAVAILABLE],
    ["ENOTFOUND", INTERNAL],
    ["SOMETHING_ELSE", INTERNAL],
  ])("%s", (code, expected) => {
    expect(mapped(driverError(code))).toEqual(expected);
  });
});

describe("toAppError: tRPC codes", () => {
  const cases: Record<TRPC_ERROR_CODE_KEY, { status: number; kind: ErrorKind; message: string }> = {
    PARSE_ERROR: { status: 400, kind: "VALIDATION_ERROR", message: "tRPC said PARSE_ERROR" },
    BAD_REQUEST: { status: 400, kind: "VALIDATION_ERROR", message: "tRPC said BAD_REQUEST" },
    UNAUTHORIZED: { status: 401, kind: "UNAUTHORIZED", message: "tRPC said UNAUTHORIZED" },
    FORBIDDEN: { status: 403, kind: "FORBIDDEN", message: "tRPC said FORBIDDEN" },
    NOT_FOUND: { status: 404, kind: "NOT_FOUND", message: "tRPC said NOT_FOUND" },
    CONFLICT: { status: 409, kind: "CONFLICT", message: "tRPC said CONFLICT" },
    PAYLOAD_TOO_LARGE: { status: 413, kind: "PAYLOAD_TOO_LARGE", message: "tRPC said PAYLOAD_TOO_LARGE" },
    TOO_MANY_REQUESTS: { status: 429, kind: "TOO_MANY_REQUESTS", message: "tRPC said TOO_MANY_REQUESTS" },
    SERVICE_UNAVAILABLE: { status: 503, kind: "SERVICE_UNAVAILABLE", message: "tRPC said SERVICE_UNAVAILABLE" },
    INTERNAL_SERVER_ERROR: INTERNAL,
    NOT_IMPLEMENTED: INTERNAL,
    BAD_GATEWAY: INTERNAL,
    GATEWAY_TIMEOUT: INTERNAL,
    PAYMENT_REQUIRED: INTERNAL,
    // A client's mistakes in calling tRPC (issue K): the contract's VALIDATION_ERROR, with the precise status.
    METHOD_NOT_SUPPORTED: { status: 405, kind: "VALIDATION_ERROR", message: "tRPC said METHOD_NOT_SUPPORTED" },
    TIMEOUT: INTERNAL,
    PRECONDITION_FAILED: INTERNAL,
    UNSUPPORTED_MEDIA_TYPE: { status: 415, kind: "VALIDATION_ERROR", message: "tRPC said UNSUPPORTED_MEDIA_TYPE" },
    UNPROCESSABLE_CONTENT: INTERNAL,
    PRECONDITION_REQUIRED: INTERNAL,
    CLIENT_CLOSED_REQUEST: INTERNAL,
  };

  it("lists every code tRPC has", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(TRPC_ERROR_CODES_BY_KEY).sort());
  });

  it.each(Object.entries(cases))("%s", (code, expected) => {
    expect(mapped(new TRPCError({ code: code as TRPC_ERROR_CODE_KEY, message: `tRPC said ${code}` }))).toEqual(expected);
  });
});

describe("toAppError: validation, AppErrors and nested causes", () => {
  const zodError = z.object({ ids: z.array(z.string()).min(1, "too few"), n: z.number() }).safeParse({ ids: [] }).error!;

  it("a ZodError lists each field and why", () => {
    const e = toAppError(zodError);
    expect({ status: e.status, kind: e.kind, message: e.message, details: e.details }).toEqual({
      status: 400,
      kind: "VALIDATION_ERROR",
      message: "Invalid input",
      details: [
        { field: "ids", message: "too few" },
        { field: "n", message: expect.any(String) },
      ],
    });
  });

  it("a ZodError about the whole input names (body)", () => {
    expect(toAppError(z.object({}).safeParse(3).error).details).toEqual([{ field: "(body)", message: expect.any(String) }]);
  });

  it("an AppError is kept as it is", () => {
    const error = new AppError("CONFLICT", "Cohort number 7 already exists");
    expect(toAppError(error)).toBe(error);
  });

  it.each([
    ["a ZodError inside tRPC's BAD_REQUEST", new TRPCError({ code: "BAD_REQUEST", cause: zodError }), "VALIDATION_ERROR"],
    [
      "an AppError inside tRPC's INTERNAL_SERVER_ERROR",
      new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new AppError("NOT_FOUND", "Pro p not found") }),
      "NOT_FOUND",
    ],
    [
      "a SQLSTATE inside a query error inside a TRPCError",
      new TRPCError({
        code: "INTERNAL_SERVER_ERROR",
        cause: new Error("Failed query: insert into cohorts", { cause: driverError("57P01") }),
      }),
      "SERVICE_UNAVAILABLE",
    ],
    [
      "a driver code two causes down",
      new Error("a", { cause: new Error("b", { cause: driverError("ECONNRESET") }) }),
      "SERVICE_UNAVAILABLE",
    ],
    ["a unique violation under a wrapper", new Error("wrapped", { cause: driverError("23505") }), "CONFLICT"],
    ["a ProcedureError (the tRPC door's form of an AppError)", new ProcedureError(new AppError("FORBIDDEN", "Access denied")), "FORBIDDEN"],
  ])("finds %s", (_case, err, kind) => {
    expect(toAppError(err).kind).toBe(kind);
  });

  it("ends on a cause chain that loops", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    Object.assign(a, { cause: b });
    expect(mapped(a)).toEqual(INTERNAL);
  });

  it("answers an unknown failure with a generic 500, keeping the original as the cause", () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'proIds') at activateCohort (cohorts.ts:80)");
    const e = toAppError(bug);
    expect(mapped(bug)).toEqual(INTERNAL);
    expect(e.cause).toBe(bug);
    expect(mapped("a thrown string")).toEqual(INTERNAL);
    expect(mapped(undefined)).toEqual(INTERNAL);
  });
});

describe("the doors", () => {
  const kinds: [ErrorKind, number, TRPC_ERROR_CODE_KEY][] = [
    ["VALIDATION_ERROR", 400, "BAD_REQUEST"],
    ["UNAUTHORIZED", 401, "UNAUTHORIZED"],
    ["FORBIDDEN", 403, "FORBIDDEN"],
    ["NOT_FOUND", 404, "NOT_FOUND"],
    ["CONFLICT", 409, "CONFLICT"],
    ["PAYLOAD_TOO_LARGE", 413, "PAYLOAD_TOO_LARGE"],
    ["TOO_MANY_REQUESTS", 429, "TOO_MANY_REQUESTS"],
    ["INTERNAL_ERROR", 500, "INTERNAL_SERVER_ERROR"],
    ["SERVICE_UNAVAILABLE", 503, "SERVICE_UNAVAILABLE"],
  ];

  it.each(kinds)("%s: REST %d with the envelope, tRPC %s", (kind, status, code) => {
    const error = new AppError(kind, `a ${kind}`);
    expect(toRestError(error)).toEqual({
      status,
      body: { success: false, error: { code: kind, message: `a ${kind}` } },
      headers: {},
    });
    const procedureError = new ProcedureError(error);
    expect(procedureError).toMatchObject({ code, message: `a ${kind}`, kind, cause: error });
    // The tRPC door's error maps back to the same AppError.
    expect(toRestError(procedureError).status).toBe(status);
  });

  it("REST lists field details; a ProcedureError carries them too", () => {
    const error = new AppError("VALIDATION_ERROR", "Invalid input", [{ field: "ids", message: "too few" }]);
    expect(toRestError(error).body).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: "Invalid input", details: [{ field: "ids", message: "too few" }] },
    });
    expect(new ProcedureError(error).details).toEqual([{ field: "ids", message: "too few" }]);
  });

  it("VAPID not configured: REST 500 with the bare body, tRPC INTERNAL_SERVER_ERROR with its message", () => {
    const error = new VapidNotConfiguredError();
    expect(toRestError(error)).toEqual({ status: 500, body: { error: "VAPID not configured" }, headers: {} });
    expect(toRestError(new ProcedureError(error))).toEqual({ status: 500, body: { error: "VAPID not configured" }, headers: {} });
    expect(new ProcedureError(error)).toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: "VAPID not configured" });
  });

  it("over a rate limit: 429 TOO_MANY_REQUESTS with Retry-After on REST, TOO_MANY_REQUESTS on tRPC", () => {
    const error = new TooManyRequestsError(42);
    expect(toRestError(new ProcedureError(error))).toEqual({
      status: 429,
      body: { success: false, error: { code: "TOO_MANY_REQUESTS", message: "Too many requests; try again later" } },
      headers: { "retry-after": "42" },
    });
    expect(new ProcedureError(error).code).toBe("TOO_MANY_REQUESTS");
  });

  it("REST never shows a driver's text", () => {
    const { body } = toRestError(new Error("x", { cause: driverError("42P01", 'relation "pro_restriction_status" does not exist') }));
    expect(body).toEqual({ success: false, error: { code: "INTERNAL_ERROR", message: "Internal server error" } });
  });
});
