// The producer API as another service calls it: a key with notifications:write, batches of events, and what
// became of each (docs/producers.md#sending-notifications-from-a-service).
import { randomBytes } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { insertApiKey, type TestApiKey } from "./api-keys.js";
import type { TestApp } from "./app.js";

export type EventResult = { eventId: string | null; status: string; notificationId: string | null; push: number; error?: string };
export type EventStatus = {
  eventId: string;
  notificationId: string | null;
  userId: string;
  createdAt: string;
  deliveries: {
    subscriptionId: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
    sentAt: string | null;
    topic: string | null;
    displayedAt: string | null;
    clickedAt: string | null;
  }[];
  funnel: Record<"queued" | "accepted" | "displayed" | "clicked", { count: number; firstAt: string | null; lastAt: string | null }> & {
    superseded: number;
  };
};

export const newEventId = () => `evt-${randomBytes(6).toString("hex")}`;

/** An event for `userId` with a fresh eventId; `fields` override any part. */
export const eventFor = (userId: string, fields: Record<string, unknown> = {}) => ({
  eventId: newEventId(),
  userId,
  type: "message.received",
  title: "New message",
  body: "Are you free on Tuesday?",
  url: "/inbox/1",
  ...fields,
});

export function producer(app: () => TestApp) {
  return {
    key: (name?: string): Promise<TestApiKey> => insertApiKey(app().db.db, { scopes: ["notifications:write"], name }),
    send: (key: { headers: Record<string, string> } | null, events: unknown, raw?: string): Promise<LightMyRequestResponse> =>
      app().app.inject({
        method: "POST",
        url: "/api/notifications/events",
        headers: { "content-type": "application/json", ...key?.headers },
        payload: raw ?? JSON.stringify({ events }),
      }),
    /** The results of a batch that must be answered 200. */
    async results(key: { headers: Record<string, string> }, events: unknown[]): Promise<EventResult[]> {
      const res = await this.send(key, events);
      if (res.statusCode !== 200) throw new Error(`events: ${res.statusCode} ${res.body}`);
      return (res.json() as { data: { results: EventResult[] } }).data.results;
    },
    status: (key: { headers: Record<string, string> }, eventId: string) =>
      app().app.inject({ method: "GET", url: `/api/notifications/events/${encodeURIComponent(eventId)}`, headers: key.headers }),
  };
}
