// A browser's push subscription, made as a browser would: fresh keys (tools/local-push-service.ts's
// subscriber, which can decrypt what is sent to it), registered over REST by the user.
import { expect } from "vitest";
import { makeSubscriber, type Subscriber } from "../../tools/local-push-service.js";
import type { TestApp, TestUser } from "./app.js";

export async function subscribeAt(
  app: TestApp,
  user: TestUser,
  endpoint: string,
): Promise<{ id: string; endpoint: string; subscriber: Subscriber }> {
  const subscriber = makeSubscriber();
  const res = await app.app.inject({
    method: "POST",
    url: "/api/notifications/subscriptions",
    headers: user.headers,
    payload: { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: (res.json().data as { subscription: { id: string } }).subscription.id, endpoint, subscriber };
}
