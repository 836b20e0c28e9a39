// A typed tRPC client for the admin web app, as a runnable walk-through. Only the router's *type* is
// imported: no server code ends up in a client bundle, and a breaking change to a procedure fails
// `npm run typecheck` here.
//
//   npm run example -- --url http://127.0.0.1:3000 --email admin@example.com --password admin-password-123
//
// Defaults match `npm run db:seed`; API_URL, ADMIN_EMAIL and ADMIN_PASSWORD override them too.
import { createECDH, randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import type { AppRouter } from "../server/routers/app-router.js";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", default: process.env.API_URL ?? "http://127.0.0.1:3000" },
    email: { type: "string", default: process.env.ADMIN_EMAIL ?? "admin@example.com" },
    password: { type: "string", default: process.env.ADMIN_PASSWORD ?? "admin-password-123" },
  },
});

const step = (title: string, value: unknown) => console.log(`\n# ${title}\n${JSON.stringify(value, null, 2)}`);

/** better-auth answers a sign-in with a session token, sent from then on as a bearer token. */
async function signIn(baseUrl: string, email: string, password: string): Promise<{ token: string; userId: string }> {
  const res = await fetch(new URL("/api/auth/sign-in/email", baseUrl), {
    method: "POST",
    // fetch sends Fetch Metadata headers, so better-auth wants a trusted Origin, as from a browser page.
    headers: { "content-type": "application/json", origin: new URL(baseUrl).origin },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in failed (${res.status}): ${await res.text()}`);
  const { token, user } = (await res.json()) as { token: string; user: { id: string } };
  return { token, userId: user.id };
}

async function main() {
  const { token, userId } = await signIn(args.url, args.email, args.password);
  step("signed in", { email: args.email });

  const url = new URL("/trpc", args.url).toString();
  const authorization = `Bearer ${token}`;
  const api = createTRPCClient<AppRouter>({
    links: [
      // Subscriptions stream over SSE (a browser's own EventSource sends the session cookie; Node's
      // eventsource package takes the bearer token through its fetch); everything else is batched.
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({
          url,
          transformer: superjson,
          EventSource,
          eventSourceOptions: () => ({
            fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization } }),
          }),
        }),
        false: httpBatchLink({ url, transformer: superjson, headers: { authorization } }),
      }),
    ],
  });

  const cohort = await api.restriction.createCohort.mutate({
    cohortNumber: Math.floor(Date.now() / 1000) % 1_000_000_000,
    proIds: ["pro-0001", "pro-0002", "pro-0003"],
  });
  // Dates arrive as Date objects (superjson), as the client's types say.
  step("cohort created", { ...cohort, createdAtIsDate: cohort.createdAt instanceof Date });

  const check = await api.restriction.checkGates.mutate({ id: cohort.id, responseRate: 0.42, comparisonsDone: 12 });
  step("gate check", check);

  try {
    await api.restriction.activateCohort.mutate({ id: cohort.id });
    step("activation", "unexpectedly allowed");
  } catch (err) {
    if (!(err instanceof TRPCClientError)) throw err;
    step("activation blocked", { code: err.data?.appCode, message: err.message });
  }

  const inbox = await api.notifications.list.query({ page: 1, limit: 5 });
  step("notifications", {
    total: inbox.total,
    unread: inbox.unread_count,
    titles: inbox.notifications.map((n) => n.title),
  });
  const { count } = await api.notifications.unreadCount.query();
  step("unread count", count);

  // The live badge: the count on subscribing, then after every change (here, a notification to ourselves).
  const sendToSelf = () => api.notifications.testInApp.mutate({ type: "message.received", title: "Live badge", targetUserId: userId });
  const live: number[] = [];
  await new Promise<void>((resolve, reject) => {
    const subscription = api.notifications.onUnreadCount.subscribe(undefined, {
      onData: ({ count }) => {
        live.push(count);
        if (live.length === 1) void sendToSelf().catch(reject);
        if (live.length === 2) {
          subscription.unsubscribe();
          resolve();
        }
      },
      onError: reject,
    });
  });
  step("live unread count", { onSubscribe: live[0], afterANewNotification: live[1] });

  // A browser gets these from PushManager.subscribe(); here, keys of the same shape.
  const { subscription } = await api.notifications.subscribe.mutate({
    endpoint: `https://push.example.com/send/${randomBytes(8).toString("hex")}`,
    p256dh: createECDH("prime256v1").generateKeys().toString("base64url"),
    auth: randomBytes(16).toString("base64url"),
  });
  step("push subscription registered", { id: subscription.id, endpoint: subscription.endpoint });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
