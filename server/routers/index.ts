import type { AnyTRPCQueryProcedure, inferRouterInputs } from "@trpc/server";
import type { z } from "zod";
import { createCallerFactory, router } from "../trpc/index.js";
import { auditInputs, auditRouter } from "./audit/router.js";
import { notificationInputs, notificationsRouter } from "./notifications/router.js";
import { restrictionInputs, restrictionRouter } from "./restriction/router.js";

export const appRouter = router({
  restriction: restrictionRouter,
  notifications: notificationsRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);

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
export type IsQuery<P extends ProcedurePath> = At<AppRouter, P> extends AnyTRPCQueryProcedure ? true : false;

const inputsByRouter = {
  restriction: restrictionInputs,
  notifications: notificationInputs,
  audit: auditInputs,
} satisfies Record<keyof inferRouterInputs<AppRouter>, Record<string, z.ZodType>>;

const inputSchemas = new Map(
  Object.entries(inputsByRouter).flatMap(([routerName, inputs]) =>
    Object.entries(inputs).map(([name, schema]): [string, z.ZodType] => [`${routerName}.${name}`, schema]),
  ),
);

/** The zod schema a procedure parses its input with; undefined when it takes no input. */
export const inputSchemaOf = (path: ProcedurePath): z.ZodType | undefined => inputSchemas.get(path);
