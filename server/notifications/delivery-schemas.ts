// Inputs and answers of the admin view of producers' events and their push deliveries.
import { z } from "zod";
import { deliveryStatuses, noPushReasons } from "../../db/schema/delivery-statuses.js";
import { storableText } from "../http/text.js";
import { producerFunnelOutput, pushFunnelOutput } from "../push/funnel.js";

/**
 * Why an event queued no push (server/producers/no-push.ts). Also the producer API's event answer: it lives
 * here because the apps' types load this file and must not load the producer API's schemas.
 */
export const noPushOutput = z
  .enum(noPushReasons)
  .nullable()
  .describe(
    "Why no push delivery was queued: push_off (the user turned push off for its category), push_not_configured (the service has no VAPID keys), no_subscription (the user had no active push subscription); null when deliveries were queued, or for an event received before the reason was kept",
  );

export const MAX_RECENT_EVENTS = 100;

export const recentEventsInput = z
  .object({
    producer: storableText()
      .max(100)
      .optional()
      .meta({ description: "Only this producer's events (the key's name)", examples: ["messaging-service"] }),
    userId: storableText()
      .max(200)
      .optional()
      .meta({ description: "Only events for this user", examples: ["Xq3v9LmT2pRk8sWd"] }),
    userEmail: storableText()
      .max(320)
      .optional()
      .meta({ description: "Only events for the user with this email (any case)", examples: ["ana@example.com"] }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_RECENT_EVENTS)
      .optional()
      .meta({ description: `Events to answer, newest first, 1 to ${MAX_RECENT_EVENTS} (default 50)`, examples: [50] }),
  })
  .default({});

const instant = (what: string) => z.date().describe(`${what} (ISO 8601 date-time, UTC)`);

export const deliveryOutput = z.object({
  subscriptionId: z.string().describe("The push subscription"),
  status: z.enum(deliveryStatuses).describe("queued, sent, failed, gone or superseded (docs/api.md#durable-push-delivery)"),
  attempts: z.number().int().describe("Attempts made"),
  lastStatusCode: z.number().int().nullable().describe("The push service's status at the last attempt"),
  lastError: z.string().nullable().describe("What went wrong at the last attempt"),
  nextAttemptAt: instant("When a queued delivery is next tried"),
  sentAt: instant("When it was sent").nullable().describe("When the push service accepted it"),
  topic: z.string().nullable().describe("Its RFC 8030 topic; null when the event had none"),
  displayedAt: instant("When it was displayed").nullable().describe("When a service worker reported showing it (a click implies it)"),
  clickedAt: instant("When it was clicked").nullable().describe("When a click on it was reported"),
});

export const recentEventsOutput = z.object({
  events: z
    .array(
      z.object({
        producer: z.string().describe("The producer (the key's name)"),
        eventId: z.string().describe("The producer's eventId"),
        userId: z.string().describe("The user it was for"),
        userEmail: z.string().describe("That user's email"),
        userName: z.string().describe("That user's name"),
        notificationId: z.string().nullable().describe("The notification made; null when in-app was off"),
        createdAt: instant("When it was received"),
        noPush: noPushOutput,
        deliveries: z.array(deliveryOutput).describe("Its push deliveries"),
        funnel: pushFunnelOutput,
      }),
    )
    .describe("Producers' events, newest first"),
  producers: z.array(producerFunnelOutput).describe("Per producer, the funnel of the events listed"),
});

export type RecentEventsInput = z.infer<typeof recentEventsInput>;
