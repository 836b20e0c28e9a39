// The consumer fixture (tsconfig.json beside it): a typed client of the service, as another app writes it.
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../../server/routers/app-router.js";

const client = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: "http://127.0.0.1:3000/trpc", transformer: superjson })],
});

export async function badge(): Promise<number> {
  const { count } = await client.notifications.unreadCount.query();
  return count;
}

export async function restrictedNow(proId: string): Promise<boolean> {
  const status = await client.restriction.getPro.query({ proId });
  return status.restrictionActive;
}
