// Type-level tests of what the typed client may send, checked by `npm run typecheck` (tsc): the inbox
// procedures take plain values; repeated keys and numbers-as-text are the REST adapter's business.
import type { inferRouterInputs } from "@trpc/server";
import { expectTypeOf } from "vitest";
import type { AppRouter } from "../../server/routers/index.js";

type Inputs = inferRouterInputs<AppRouter>["notifications"];
/** The input when one is given (both may also be called without one). */
type Given<T> = Exclude<T, void | undefined>;

expectTypeOf<Given<Inputs["list"]>>().toEqualTypeOf<{ category?: string; search?: string; page?: number; limit?: number }>();
expectTypeOf<Given<Inputs["list"]>["page"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<Given<Inputs["markAllRead"]>>().toEqualTypeOf<{ category?: string }>();
expectTypeOf<undefined>().toExtend<Inputs["list"]>();

expectTypeOf<{ page: number }>().toExtend<Inputs["list"]>();
expectTypeOf<{ page: string }>().not.toExtend<Inputs["list"]>();
expectTypeOf<{ category: string[] }>().not.toExtend<Inputs["list"]>();
expectTypeOf<{ category: string[] }>().not.toExtend<Inputs["markAllRead"]>();
