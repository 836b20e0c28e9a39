// The typed tRPC client of the console: same origin, the better-auth session cookie, superjson (Dates
// arrive as Date). Only the router's type comes from the server.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import superjson from "superjson";
import type { AppRouter } from "../../server/routers/app-router.js";

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

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // An operator's view should be fresh, but a retry of a refused request only delays its message.
      retry: (count, err) => !(err instanceof TRPCClientError) && count < 2,
      refetchOnWindowFocus: false,
    },
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
