// A typed tRPC client for the admin web app, as a runnable walk-through. Only the router's *type* is
// imported: no server code ends up in a client bundle, and a breaking change to a procedure fails
// `npm run typecheck` here.
//
//   npm run example -- --url http://127.0.0.1:3000 --email admin@example.com --password admin-password-123
//
// Defaults match `npm run db:seed`; API_URL, ADMIN_EMAIL and ADMIN_PASSWORD override them too. Without --url
// or API_URL it looks at http://127.0.0.1:PORT, PORT being the server's own setting (3000 unset).
//
// It runs against your server and leaves its data as it found it: it reads cohorts and previews a new one
// instead of creating it (a cohort cannot be deleted, and its number would stay taken), registers no push
// subscription (only a browser has a real one), deletes the one notification it sends itself, and signs
// out. What stays is the audit trail's record of that notification (the trail is append-only).
import { parseArgs } from "node:util";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import type { AppRouter } from "../server/routers/app-router.js";

const { values: args } = parseArgs({
  options: {
    url: { type: "string", default: process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}` },
    email: { type: "string", default: process.env.ADMIN_EMAIL ?? "admin@example.com" },
    password: { type: "string", default: process.env.ADMIN_PASSWORD ?? "admin-password-123" },
  },
});

const step = (title: string, value: unknown) => console.log(`\n# ${title}\n${JSON.stringify(value, null, 2)}`);

/** better-auth answers a sign-in with a session token, sent from then on as a bearer token. */
async function signIn(baseUrl: string, email: string, password: string): Promise<{ token: string; userId: string }> {
  const res = await reach(new URL("/api/auth/sign-in/email", baseUrl), {
    method: "POST",
    // A program's call (no cookie, no Origin) needs no Origin header: docs/api.md#browsers.
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) {
    throw new Error(
      `sign-in as ${email} failed (${res.status}): ${await res.text()}\nThe example signs in with --email and --password, else ADMIN_EMAIL and ADMIN_PASSWORD, else the seed's admin@example.com / admin-password-123.`,
    );
  }
  const { token, user } = (await res.json()) as { token: string; user: { id: string } };
  return { token, userId: user.id };
}

/** Ends the session the example signed in with. */
async function signOut(baseUrl: string, token: string): Promise<void> {
  const res = await fetch(new URL("/api/auth/sign-out", baseUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) throw new Error(`sign-out failed (${res.status}): ${await res.text()}`);
}

type Api = ReturnType<typeof createTRPCClient<AppRouter>>;

/** The tRPC subscription `notifications.onUnreadCount`, read one value at a time. */
function liveUnreadCount(api: Api) {
  const arrived: number[] = [];
  const waiting: { resolve: (count: number) => void; reject: (err: unknown) => void }[] = [];
  let failure: unknown = null;
  const subscription = api.notifications.onUnreadCount.subscribe(undefined, {
    onData: ({ count }) => {
      const next = waiting.shift();
      if (next) next.resolve(count);
      else arrived.push(count);
    },
    onError: (err) => {
      failure = err;
      for (const next of waiting.splice(0)) next.reject(err);
    },
  });
  return {
    next: () =>
      new Promise<number>((resolve, reject) => {
        if (arrived.length) resolve(arrived.shift()!);
        else if (failure) reject(failure);
        else waiting.push({ resolve, reject });
      }),
    stop: () => subscription.unsubscribe(),
  };
}

/** fetch, with a failed connection told in one line naming the URL tried and how to point elsewhere (fetch says only "fetch failed"). */
async function reach(input: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `Cannot reach the service at ${new URL(args.url).origin} (${cause?.code ?? cause?.message ?? (err as Error).message}). Is it running? Point the example at it with --url http://HOST:PORT, API_URL, or PORT.`,
    );
  }
}

async function main() {
  const { token, userId } = await signIn(args.url, args.email, args.password);
  step("signed in", { email: args.email });
  try {
    await walkThrough(token, userId);
  } finally {
    await signOut(args.url, token);
  }
  step(
    "left as found",
    "no cohort created, no push subscription registered, the notification it sent itself deleted, signed out (the audit trail keeps its notification.test_in_app event)",
  );
}

async function walkThrough(token: string, userId: string) {
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

  const cohorts = await api.restriction.listCohorts.query();
  const latest = cohorts.at(-1);
  const nextNumber = (latest?.cohortNumber ?? 0) + 1;
  // Dates arrive as Date objects (superjson), as the client's types say.
  step("cohorts", {
    count: cohorts.length,
    latest: latest ? { cohortNumber: latest.cohortNumber, status: latest.status, createdAtIsDate: latest.createdAt instanceof Date } : null,
  });
  if (latest) {
    // What activating it would do now, and what would block it: a read.
    const impact = await api.restriction.previewCohort.query({ id: latest.id, action: "activate" });
    step(`activating cohort ${latest.cohortNumber} would`, {
      turnOn: impact.turnOn.length,
      unchanged: impact.unchanged.length,
      blockedBy: impact.blockedBy,
    });
  }

  // What creating a cohort would meet, without creating it.
  const proIds = ["pro-0001", "pro-0002", "pro-0003"];
  const preview = await api.restriction.previewNewCohort.mutate({ cohortNumber: nextNumber, proIds });
  step(`a new cohort ${nextNumber} of ${proIds.join(", ")} (previewed, not created)`, preview);

  // How a refusal arrives: a TRPCClientError with the REST code and the fields at fault. Nothing is written.
  try {
    await api.restriction.createCohort.mutate({ cohortNumber: 0, proIds: [] });
    step("refused cohort", "unexpectedly created");
  } catch (err) {
    if (!(err instanceof TRPCClientError)) throw err;
    step("a refused cohort (cohortNumber 0, no pros)", {
      code: err.data?.appCode,
      status: err.data?.httpStatus,
      details: err.data?.details,
    });
  }

  const inbox = await api.notifications.list.query({ page: 1, limit: 5 });
  step("notifications", {
    total: inbox.total,
    unread: inbox.unread_count,
    titles: inbox.notifications.map((n) => n.title),
  });
  const { count } = await api.notifications.unreadCount.query();
  step("unread count", count);

  // The live badge: the count on subscribing, then after every change: a notification to ourselves, then its deletion.
  const live = liveUnreadCount(api);
  const onSubscribe = await live.next();
  const { notification } = await api.notifications.testInApp.mutate({
    type: "message.received",
    title: "Live badge (the example deletes it)",
    targetUserId: userId,
  });
  const afterANewNotification = await live.next();
  await api.notifications.remove.mutate({ id: notification.id });
  const afterDeletingIt = await live.next();
  live.stop();
  step("live unread count", { onSubscribe, afterANewNotification, afterDeletingIt });

  // Push subscriptions come from a browser's PushManager.subscribe() (docs/producers.md, "Subscribing a browser").
  const [{ publicKey }, { subscriptions }] = await Promise.all([
    api.notifications.vapidPublicKey.query(),
    api.notifications.listSubscriptions.query(),
  ]);
  step("push", { configured: publicKey !== null, yourActiveSubscriptions: subscriptions.length });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
