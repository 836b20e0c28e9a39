// A procedure's public shape: its kind, what it takes and what it answers, as zod schemas. Each router
// folder lists its procedures' shapes in contract.ts; the router wires them to handlers (router.ts), the REST
// reference and serializer read them (server/rest/), and the AppRouter type that apps import is made from
// them alone (app-router.ts), so an app's type-check never loads the server's own modules.
import type { TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from "@trpc/server";
import type { z } from "zod";

export type ProcedureContract = {
  kind: "query" | "mutation" | "subscription";
  /** The input schema; absent when the procedure takes no input. */
  input?: z.ZodType;
  /** The answer's schema (for a subscription, of each event). Never parsed: see outputs.ts. */
  output: z.ZodType;
};

const shape =
  <K extends ProcedureContract["kind"]>(kind: K) =>
  <O extends z.ZodType, I extends z.ZodType | undefined = undefined>(output: O, input?: I) =>
    ({ kind, output, ...(input ? { input } : {}) }) as { kind: K; output: O } & (I extends z.ZodType ? { input: I } : { input?: never });

export const query = shape("query");
export const mutation = shape("mutation");
export const subscription = shape("subscription");

type InputOf<C extends ProcedureContract> = C["input"] extends z.ZodType ? z.input<C["input"]> : void;

/** The tRPC procedure type a contract describes, as tRPC infers it for `.input(…)` and a typed handler. */
export type ProcedureOf<C extends ProcedureContract> = C["kind"] extends "query"
  ? TRPCQueryProcedure<{ input: InputOf<C>; output: z.output<C["output"]>; meta: object }>
  : C["kind"] extends "mutation"
    ? TRPCMutationProcedure<{ input: InputOf<C>; output: z.output<C["output"]>; meta: object }>
    : TRPCSubscriptionProcedure<{ input: InputOf<C>; output: AsyncIterable<z.output<C["output"]>, void, unknown>; meta: object }>;

/** A router's procedures, from its contract. */
export type ProceduresOf<R extends Record<string, ProcedureContract>> = { [K in keyof R]: ProcedureOf<R[K]> };
