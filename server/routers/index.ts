import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { z } from "zod";
import { createCallerFactory, router } from "../trpc/index.js";
import { apiKeysContract } from "./api-keys/contract.js";
import { apiKeysRouter } from "./api-keys/router.js";
import type { AppRouter } from "./app-router.js";
import { auditContract } from "./audit/contract.js";
import { auditRouter } from "./audit/router.js";
import type { ProcedureContract } from "./contract.js";
import { deliveriesContract } from "./deliveries/contract.js";
import { deliveriesRouter } from "./deliveries/router.js";
import { notificationsContract } from "./notifications/contract.js";
import { notificationsRouter } from "./notifications/router.js";
import { restrictionContract } from "./restriction/contract.js";
import { restrictionRouter } from "./restriction/router.js";
import { settingsContract } from "./settings/contract.js";
import { settingsRouter } from "./settings/router.js";
import { usersContract } from "./users/contract.js";
import { usersRouter } from "./users/router.js";

export type { AppRouter } from "./app-router.js";

export const appRouter = router({
  restriction: restrictionRouter,
  notifications: notificationsRouter,
  audit: auditRouter,
  apiKeys: apiKeysRouter,
  deliveries: deliveriesRouter,
  settings: settingsRouter,
  users: usersRouter,
});

/** The running router, with the server's context: for the doors. Apps import AppRouter instead. */
export type ServerRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

// ---- the running router is exactly the published one (app-router.ts) ----

/** true when A and B are each assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The procedures of two routers' input or output maps that differ, by router and procedure; never when none does. */
type Differing<A, B> = {
  [R in keyof A & keyof B]: {
    [P in keyof A[R] & keyof B[R]]: Same<A[R][P], B[R][P]> extends true ? never : `${R & string}.${P & string}`;
  }[keyof A[R] & keyof B[R]];
}[keyof A & keyof B];
/** Compiles only when no procedure differs: each error names the procedures whose handler drifted from its contract. */
const exactly = <Drift extends string>(drift: [Drift] extends [never] ? "none" : { differs: Drift }) => drift;
exactly<Differing<inferRouterOutputs<ServerRouter>, inferRouterOutputs<AppRouter>>>("none");
exactly<Differing<inferRouterInputs<ServerRouter>, inferRouterInputs<AppRouter>>>("none");
exactly<Same<keyof ServerRouter["_def"]["record"], keyof AppRouter["_def"]["record"]> extends true ? never : "routers">("none");
exactly<Same<inferRouterError<ServerRouter>, inferRouterError<AppRouter>> extends true ? never : "error shape">("none");

// ---- procedures by path, typed ----

/** The dotted paths of a caller's procedures: a key whose value is a function, or a router's key and its paths. */
type PathsOf<T> = {
  [K in keyof T & string]: T[K] extends (...args: never[]) => unknown ? K : `${K}.${PathsOf<T[K]>}`;
}[keyof T & string];

/** What sits at a dotted path of a nested record type. */
type At<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? At<T[Head], Rest>
    : never
  : P extends keyof T
    ? T[P]
    : never;

/** Every procedure of the app, as `router.procedure`. */
export type ProcedurePath = PathsOf<ReturnType<typeof createCaller>>;
export type ProcedureInput<P extends ProcedurePath> = At<inferRouterInputs<AppRouter>, P>;
export type IsQuery<P extends ProcedurePath> = At<AppRouter, P> extends { _def: { type: "query" } } ? true : false;

const contracts: Record<keyof AppRouter["_def"]["record"], Record<string, ProcedureContract>> = {
  restriction: restrictionContract,
  notifications: notificationsContract,
  audit: auditContract,
  apiKeys: apiKeysContract,
  deliveries: deliveriesContract,
  settings: settingsContract,
  users: usersContract,
};

const contractByPath = new Map(
  Object.entries(contracts).flatMap(([routerName, procedures]) =>
    Object.entries(procedures).map(([name, contract]): [string, ProcedureContract] => [`${routerName}.${name}`, contract]),
  ),
);

/** The zod schema a procedure parses its input with; undefined when it takes no input. */
export const inputSchemaOf = (path: ProcedurePath): z.ZodType | undefined => contractByPath.get(path)?.input;

/** The zod schema of what a procedure answers (server/routers/contract.ts). */
export const outputSchemaOf = (path: ProcedurePath): z.ZodType => {
  const contract = contractByPath.get(path);
  if (!contract) throw new Error(`no contract for procedure ${path}`);
  return contract.output;
};
