// REST requests through app.inject, and the contract's envelope: `{ success: true, data }` for a success,
// `{ success: false, error: { code, message, details? } }` for an error, and never a 5xx.
import type { inferRouterOutputs } from "@trpc/server";
import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import type { AppRouter } from "../../server/routers/index.js";
import type { TestApp, TestUser } from "./app.js";

export type Json = Record<string, unknown>;
/** One field a validation error names. */
export type ErrorDetail = { field: string; message: string };
/** The `error` of an error envelope. */
export type ApiError = { code: string; message: string; details?: ErrorDetail[] };
/** Either envelope, as it arrives: `data` on a success, `error` on an error. */
export type Envelope<T = unknown> = { success: boolean; data?: T; error?: ApiError };

/** A value as it crosses HTTP as JSON: dates become ISO strings. */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;
type Outputs = inferRouterOutputs<AppRouter>;
/** Every procedure of the router, as `router.procedure`. */
export type ProcedurePath = { [R in keyof Outputs & string]: `${R}.${keyof Outputs[R] & string}` }[keyof Outputs & string];
/** What a procedure answers over HTTP: the REST envelope's `data`, or the JSON of a tRPC result. */
export type WireOutput<P extends ProcedurePath> = P extends `${infer R extends keyof Outputs & string}.${infer Q}`
  ? Q extends keyof Outputs[R]
    ? Wire<Outputs[R][Q]>
    : never
  : never;

export type RestRequest = {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
};

/** An ISO 8601 timestamp as the API writes it (UTC, milliseconds). */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Requests against the app of `app()`, each checked against the envelope. */
export function restClient(app: () => TestApp) {
  /** Sends a request as `user` (anonymous when null); never accepts a 5xx. */
  async function send(user: TestUser | null, request: RestRequest): Promise<LightMyRequestResponse> {
    const res = await app().app.inject({
      method: request.method,
      url: request.url,
      headers: { ...(user ? user.headers : {}), ...request.headers },
      ...(request.payload === undefined ? {} : { payload: request.payload as string | object }),
    });
    expect(res.statusCode, `${request.method} ${request.url}: ${res.body}`).toBeLessThan(500);
    return res;
  }

  /** The data of a success envelope, after checking the status. */
  async function ok<T = Json>(user: TestUser, request: RestRequest, status = 200): Promise<T> {
    const res = await send(user, request);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json() as { success: boolean; data: T };
    expect(Object.keys(body).sort()).toEqual(["data", "success"]);
    expect(body.success).toBe(true);
    return body.data;
  }

  /** The error of an error envelope, after checking the status, code and (when given) message. */
  async function fails(user: TestUser | null, request: RestRequest, status: number, code: string, message?: string): Promise<ApiError> {
    const res = await send(user, request);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json() as { success: boolean; error: ApiError };
    expect(Object.keys(body).sort()).toEqual(["error", "success"]);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe("string");
    if (message !== undefined) expect(body.error.message).toBe(message);
    return body.error;
  }

  /** A 400 VALIDATION_ERROR whose details name `field`. */
  async function invalid(user: TestUser, request: RestRequest, field: string) {
    const error = await fails(user, request, 400, "VALIDATION_ERROR");
    expect(error.details?.map((d) => d.field)).toContain(field);
    for (const detail of error.details ?? []) expect(typeof detail.message).toBe("string");
  }

  return { send, ok, fails, invalid };
}
