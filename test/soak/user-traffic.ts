// One signed-in user's traffic: a weighted mix of inbox, push-subscription, sign-in and error-path requests.
import { randomUUID } from "node:crypto";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type Actor, control, rng, weighted } from "./actors.js";
import { data, envelope, errorCode, send } from "./http.js";
import { MAX_OPS_PER_ACTOR, SIGN_IN_EVERY_MS } from "./settings.js";

const CATEGORIES = ["messages", "leads", "reviews", "billing", "account", "system"] as const;

const userMix = weighted([
  [20, "list"],
  [10, "unread"],
  [6, "trpc-unread"],
  [10, "mark-read"],
  [5, "read-all"],
  [6, "delete-one"],
  [4, "bulk-delete"],
  [6, "subscribe"],
  [4, "list-subscriptions"],
  [3, "unsubscribe"],
  [4, "forbidden"],
  [3, "not-found"],
  [3, "bad-body"],
  [2, "anonymous"],
  [3, "sign-in"],
  [4, "health"],
] as const);

export async function userLoop(user: Actor, seed: number, deadline: number, endpoints: string[]) {
  const r = rng(seed);
  let known: string[] = [];
  let lastSignIn = 0;
  for (let i = 0; i < MAX_OPS_PER_ACTOR && Date.now() < deadline && !control.stopping; i++) {
    const token = user.token;
    let op = userMix(r.next());
    // Operations on a notification need one from the inbox: read it first.
    if (!known.length && (op === "mark-read" || op === "delete-one" || op === "bulk-delete")) op = "list";
    if (op === "sign-in" && Date.now() - lastSignIn < SIGN_IN_EVERY_MS) op = "health";
    switch (op) {
      case "list": {
        const query = new URLSearchParams({ page: String(1 + r.int(2)), limit: String(5 + r.int(30)) });
        if (r.next() < 0.3) query.set("category", r.pick(CATEGORIES));
        if (r.next() < 0.2) query.set("search", r.pick(["Soak", "%", "_", "lead", "nothing-matches"]));
        const list = data<{ notifications: { id: string }[] }>(
          await send("user: list inbox", { method: "GET", path: `/api/notifications?${query}`, token, expect: 200, check: envelope }),
        );
        if (list) known = list.notifications.map((n) => n.id);
        break;
      }
      case "unread":
        await send("user: unread count", { method: "GET", path: "/api/notifications/unread-count", token, expect: 200, check: envelope });
        break;
      case "trpc-unread":
        await send("user: tRPC unreadCount", { method: "GET", path: "/trpc/notifications.unreadCount", token, expect: 200 });
        break;
      case "mark-read":
        // One loop per user and nobody else deletes its notifications: the id is still there.
        await send("user: mark read", {
          method: "PATCH",
          path: `/api/notifications/${r.pick(known)}/read`,
          token,
          expect: 200,
          check: envelope,
        });
        break;
      case "read-all": {
        const category = r.next() < 0.5 ? `?category=${r.pick(CATEGORIES)}` : "";
        await send("user: read all", {
          method: "PATCH",
          path: `/api/notifications/read-all${category}`,
          token,
          expect: 200,
          check: envelope,
        });
        break;
      }
      case "delete-one":
        await send("user: delete one", {
          method: "DELETE",
          path: `/api/notifications/${known.pop()}`,
          token,
          expect: 200,
          check: envelope,
        });
        break;
      case "bulk-delete":
        await send("user: bulk delete", {
          method: "DELETE",
          path: "/api/notifications/bulk",
          body: { ids: known.splice(0, 3) },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      case "subscribe": {
        const { p256dh, auth } = makeSubscriber();
        await send("user: subscribe push", {
          method: "POST",
          path: "/api/notifications/subscriptions",
          body: { endpoint: r.pick(endpoints), p256dh, auth },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      }
      case "list-subscriptions":
        await send("user: list subscriptions", {
          method: "GET",
          path: "/api/notifications/subscriptions",
          token,
          expect: 200,
          check: envelope,
        });
        break;
      case "unsubscribe":
        await send("user: unsubscribe push", {
          method: "DELETE",
          path: "/api/notifications/subscriptions",
          body: { endpoint: r.pick(endpoints) },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      // Error paths are traffic too: each must answer its docs/api.md#errors status, or counts as an error.
      case "forbidden":
        await send("user: admin route (403)", {
          method: "GET",
          path: "/api/admin/restriction/cohorts",
          token,
          expect: 403,
          check: errorCode("FORBIDDEN"),
        });
        break;
      case "not-found":
        await send("user: unknown id (404)", {
          method: "PATCH",
          path: `/api/notifications/${randomUUID()}/read`,
          token,
          expect: 404,
          check: errorCode("NOT_FOUND"),
        });
        break;
      case "bad-body":
        await send("user: bad body (400)", {
          method: "DELETE",
          path: "/api/notifications/bulk",
          body: { ids: [] },
          token,
          expect: 400,
          check: errorCode("VALIDATION_ERROR"),
        });
        break;
      case "anonymous":
        await send("anonymous (401)", {
          method: "GET",
          path: "/api/notifications/unread-count",
          expect: 401,
          check: errorCode("UNAUTHORIZED"),
        });
        break;
      case "sign-in": {
        lastSignIn = Date.now();
        const answer = await send("user: sign in", {
          method: "POST",
          path: "/api/auth/sign-in/email",
          body: { email: user.email, password: user.password },
          expect: 200,
        });
        const fresh = (answer?.body as { token?: string } | undefined)?.token;
        if (fresh) user.token = fresh;
        break;
      }
      case "health":
        await send("health: ready", { method: "GET", path: "/health/ready", expect: 200 });
        break;
    }
  }
}
