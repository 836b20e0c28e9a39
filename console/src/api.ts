// The typed tRPC client of the console: same origin, the better-auth session cookie, superjson (Dates
// arrive as Date). Only the router's type comes from the server.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../../server/routers/app-router.js";
import { isUnreachable } from "./unreachable.js";
import { reconnectDelay } from "./useStayConnected.js";

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** An error answered by the service: a 401 means the session is gone. */
export const isUnauthorized = (err: unknown) =>
  err instanceof TRPCClientError && (err as TRPCClientError<AppRouter>).data?.httpStatus === 401;

/** The current session's query key (session.ts); a 401 anywhere makes it ask again. */
export const SESSION_KEY = ["session"] as const;

const onError = (err: unknown) => {
  if (isUnauthorized(err)) void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
};

/** Errors of writes (mutations): their message says they were not resent (ErrorNotice). */
const writeErrors = new WeakSet<object>();
export const isWriteError = (err: unknown) => typeof err === "object" && err !== null && writeErrors.has(err);

/**
 * While a read on screen failed because the service cannot be reached, those reads are tried again, each
 * sweep waiting longer (1 s up to 30 s), until none is left; the views show data as soon as it is back.
 */
let sweepTimer: ReturnType<typeof setTimeout> | undefined;
let sweeping = false;
let sweepAttempt = 0;
const waitingForService = {
  type: "active",
  predicate: (query: { state: { error: unknown } }) => isUnreachable(query.state.error),
} as const;
function scheduleSweep() {
  if (sweepTimer !== undefined || sweeping) return;
  sweepTimer = setTimeout(async () => {
    sweepTimer = undefined;
    sweeping = true;
    try {
      await queryClient.refetchQueries(waitingForService);
    } finally {
      sweeping = false;
    }
    if (queryClient.getQueryCache().findAll(waitingForService).length === 0) sweepAttempt = 0;
    else {
      sweepAttempt += 1;
      scheduleSweep();
    }
  }, reconnectDelay(sweepAttempt));
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (err) => {
      onError(err);
      if (isUnreachable(err)) scheduleSweep();
    },
  }),
  mutationCache: new MutationCache({
    onError: (err) => {
      if (typeof err === "object" && err !== null) writeErrors.add(err);
      onError(err);
    },
  }),
  defaultOptions: {
    queries: {
      // An operator's view should be fresh, but a retry of a refused request only delays its message; a
      // service out of reach is said at once and tried again by the sweep above.
      retry: (count, err) => !isUnreachable(err) && !(err instanceof TRPCClientError) && count < 2,
      refetchOnWindowFocus: false,
    },
    // A write is never sent twice by the console: whether the first reached the service is unknown.
    mutations: { retry: false },
  },
});

export const trpcClient = createTRPCClient<AppRouter>({
  links: [
    // Subscriptions (the live unread count) over SSE: the browser's EventSource sends the session cookie.
    splitLink({
      condition: (op) => op.type === "subscription",
      true: httpSubscriptionLink({ url: "/trpc", transformer: superjson }),
      false: httpBatchLink({
        url: "/trpc",
        transformer: superjson,
        fetch: (url, init) => fetch(url, { ...init, credentials: "same-origin" }),
      }),
    }),
  ],
});

/** queryOptions / mutationOptions / queryKey for every procedure (@trpc/tanstack-react-query). */
export const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
