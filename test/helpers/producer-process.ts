// The producer API against server processes (crash and several-instance tests): an admin from the start-up
// bootstrap, a key with notifications:write, users subscribed at a local push service.
import { randomBytes } from "node:crypto";
import webpush from "web-push";
import { makeSubscriber } from "../../tools/local-push-service.js";
import type { ServerProcess } from "./server-process.js";

export const PROCESS_ADMIN = { email: `ops-${randomBytes(4).toString("hex")}@example.com`, password: "a-long-admin-password" };

/** The environment that turns push on for local http: push services, and makes the admin. */
export function pushEnv(retryBaseMs: number): Record<string, string> {
  const keys = webpush.generateVAPIDKeys();
  return {
    VAPID_PUBLIC_KEY: keys.publicKey,
    VAPID_PRIVATE_KEY: keys.privateKey,
    VAPID_SUBJECT: "mailto:ops@example.test",
    PUSH_ALLOW_HTTP_ENDPOINTS: "true",
    PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
    PUSH_RETRY_BASE_MS: String(retryBaseMs),
    ADMIN_EMAIL: PROCESS_ADMIN.email,
    ADMIN_PASSWORD: PROCESS_ADMIN.password,
  };
}

export async function call(server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { origin: server.url, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json().catch(() => null)) as { data?: unknown; token?: string; user?: { id: string } } | null,
  };
}

/** A key with notifications:write, made by the bootstrap admin. */
export async function producerKey(server: ServerProcess): Promise<Record<string, string>> {
  const signIn = await call(server, "POST", "/api/auth/sign-in/email", PROCESS_ADMIN);
  const token = signIn.body!.token!;
  const created = await call(
    server,
    "POST",
    "/api/admin/api-keys",
    { name: `producer-${randomBytes(3).toString("hex")}`, scopes: ["notifications:write"] },
    {
      authorization: `Bearer ${token}`,
    },
  );
  return { "x-api-key": (created.body!.data as { secret: string }).secret };
}

/** A new user subscribed at `endpoint`; returns the user's id. */
export async function subscribedUser(server: ServerProcess, endpoint: string): Promise<string> {
  const email = `u-${randomBytes(4).toString("hex")}@example.com`;
  const signUp = await call(server, "POST", "/api/auth/sign-up/email", { name: "U", email, password: "a-long-user-password" });
  if (signUp.status !== 200) throw new Error(`sign-up: ${signUp.status} ${JSON.stringify(signUp.body)}`);
  const subscriber = makeSubscriber();
  const res = await call(
    server,
    "POST",
    "/api/notifications/subscriptions",
    { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
    {
      authorization: `Bearer ${signUp.body!.token}`,
    },
  );
  if (res.status !== 200) throw new Error(`subscribe: ${res.status} ${JSON.stringify(res.body)}`);
  return signUp.body!.user!.id;
}
