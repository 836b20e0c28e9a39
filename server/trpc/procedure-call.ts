// How both doors call a procedure of the app's router: as tRPC's callTRPCProcedure does, with the procedure
// found once. callTRPCProcedure looks it up on every call in an async function (it can load lazy routers,
// which the app has none of: test/unit/trpc-middleware-chain.test.ts), a promise and ~1.5 % of a read
// answered from memory (issue AE). The REST door finds each route's procedure when the route is declared;
// the tRPC door when it reads the call's path.
import type { AnyTRPCProcedure, AnyTRPCRouter, TRPCProcedureType } from "@trpc/server";

/** The procedure at `path` when it is of this type; undefined when there is none (tRPC's NOT_FOUND). */
export function procedureAt(router: AnyTRPCRouter, path: string, type: TRPCProcedureType): AnyTRPCProcedure | undefined {
  // A record without a prototype: a path such as "toString" finds nothing.
  const procedure = (router._def.procedures as Record<string, AnyTRPCProcedure | undefined>)[path];
  return typeof procedure === "function" && procedure._def.type === type ? procedure : undefined;
}

/** The procedure's answer for this context and input, as callTRPCProcedure gives it (a call alone, not in a batch). */
export const callProcedure = (procedure: AnyTRPCProcedure, path: string, ctx: unknown, getRawInput: () => Promise<unknown>) =>
  // As tRPC's handler for a call it does not stream: no query or mutation of ours stops early when its caller leaves.
  procedure({ path, type: procedure._def.type, ctx, getRawInput, signal: undefined, batchIndex: 0 });
