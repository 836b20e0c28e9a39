// The producer API's inputs and answers (docs/producers.md#sending-notifications-from-a-service): a batch of 1 to
// 100 events; each event is checked on its own, so that one bad event is rejected beside the others.
import { z } from "zod";
import { deliveryStatuses } from "../../db/schema/delivery-statuses.js";
import { firstUnstorableText } from "../http/json-text.js";
import { nonBlank, storableText } from "../http/text.js";
import { noPushOutput } from "../notifications/delivery-schemas.js";
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH, MAX_TYPE_LENGTH, MAX_URL_LENGTH } from "../notifications/limits.js";
import { isNotificationUrl, NOTIFICATION_URL_RULE } from "../notifications/urls.js";
import { pushFunnelOutput } from "../push/funnel.js";
import { TOPIC_PATTERN, TOPIC_RULE } from "../push/topic.js";

export const MAX_EVENTS_PER_BATCH = 100;
/** The largest `data` object, as JSON. */
export const MAX_DATA_BYTES = 4096;

const text = (max: number) => storableText().max(max, `must be at most ${max} characters`);

export const producerEvent = z.strictObject({
  eventId: z
    .string({ error: "is required" })
    .regex(/^[\x21-\x7E]{1,255}$/, "must be 1 to 255 visible ASCII characters")
    .meta({
      description: "The producer's id for this event: sending it again is a duplicate, for at least 30 days",
      examples: ["msg-48213"],
    }),
  userId: nonBlank(text(200)).meta({ description: "The user it is for", examples: ["Xq3v9LmT2pRk8sWd"] }),
  type: nonBlank(text(MAX_TYPE_LENGTH)).meta({
    description: "The event type; its part before the first `.` decides the category, as for the admin test endpoint",
    examples: ["message.received"],
  }),
  title: nonBlank(text(MAX_TITLE_LENGTH)).meta({ description: "The title", examples: ["New message from Ana"] }),
  body: text(MAX_BODY_LENGTH)
    .nullish()
    .meta({ description: "Text under the title", examples: ["Are you free on Tuesday?"] }),
  url: text(MAX_URL_LENGTH)
    .refine(isNotificationUrl, NOTIFICATION_URL_RULE)
    .nullish()
    .meta({
      description: "Where a click leads, an absolute https: URL or a path starting with / (not //): kept as data.url, sent in the push",
      examples: ["/inbox/48213"],
    }),
  topic: z
    .string()
    .regex(TOPIC_PATTERN, TOPIC_RULE)
    .nullish()
    .meta({
      description:
        "RFC 8030 Topic, 1 to 32 of A-Z a-z 0-9 - _: sent as the Topic header, and a newer push with the same topic to the same subscription supersedes this one while it is unsent (the inbox keeps both)",
      examples: ["thread-t9"],
    }),
  data: z
    .record(z.string(), z.unknown())
    .nullish()
    .refine((data) => !data || JSON.stringify(data).length <= MAX_DATA_BYTES, `must be at most ${MAX_DATA_BYTES} bytes as JSON`)
    // Text jsonb cannot hold (NUL) or would not keep as sent (a lone surrogate) rejects this event alone, naming where.
    .superRefine((data, ctx) => {
      const found = data ? firstUnstorableText(data) : null;
      if (found) ctx.addIssue({ code: "custom", path: found.path, message: found.message });
    })
    .meta({
      description: `A JSON object for the client, at most ${MAX_DATA_BYTES} bytes; no string or key in it may hold NUL or a lone surrogate`,
      examples: [{ threadId: "t-9" }],
    }),
});

export type ProducerEvent = z.infer<typeof producerEvent>;

/** The batch: each element is checked on its own (ingest.ts), so here only the array's bounds. */
export const eventBatchInput = z.strictObject({
  events: z
    .array(z.unknown(), { error: "must be an array of events" })
    .min(1, "must hold at least 1 event")
    .max(MAX_EVENTS_PER_BATCH, `must hold at most ${MAX_EVENTS_PER_BATCH} events`)
    .meta({
      description: `1 to ${MAX_EVENTS_PER_BATCH} events, each as in ProducerEvent`,
      items: { $ref: "#/components/schemas/ProducerEvent" },
    }),
});

export const eventResultOutput = z.object({
  eventId: z.string().nullable().describe("The event's eventId; null when it had none that could be read"),
  status: z
    .enum(["created", "duplicate", "suppressed", "rejected"])
    .describe(
      "created: stored and/or queued; duplicate: sent before by this producer, nothing changed; suppressed: the user turned both channels of its category off, nothing stored; rejected: see error",
    ),
  notificationId: z.string().nullable().describe("The notification made (the first one's for a duplicate); null when none was"),
  push: z.number().int().describe("Push deliveries queued for it"),
  error: z.string().optional().describe("Why it was rejected"),
});

export const eventBatchOutput = z.object({
  results: z.array(eventResultOutput).describe("One result per event, in the order sent"),
});

export const eventIdInput = z.object({
  eventId: z.string().meta({ description: "The producer's eventId", examples: ["msg-48213"] }),
});

export const eventStatusOutput = z.object({
  eventId: z.string().describe("The producer's eventId"),
  notificationId: z.string().nullable().describe("The notification made; null when the user takes no in-app notifications of its category"),
  userId: z.string().describe("The user it was for"),
  createdAt: z.date().describe("When it was received (ISO 8601 date-time, UTC)"),
  noPush: noPushOutput,
  deliveries: z
    .array(
      z.object({
        subscriptionId: z.string().describe("The push subscription"),
        status: z
          .enum(deliveryStatuses)
          .describe(
            "queued (waiting or between attempts), sent, failed (after 5 attempts or a final refusal), gone (404/410: the subscription was deactivated), superseded (a newer push with the same topic came before it was sent: never sent)",
          ),
        attempts: z.number().int().describe("Attempts made"),
        lastStatusCode: z
          .number()
          .int()
          .nullable()
          .describe("The push service's status at the last attempt; null before one or without an answer"),
        lastError: z.string().nullable().describe("What went wrong at the last attempt"),
        sentAt: z.date().nullable().describe("When the push service accepted it"),
        topic: z.string().nullable().describe("Its RFC 8030 topic; null when the event had none"),
        displayedAt: z.date().nullable().describe("When the service worker reported showing it (a click implies it)"),
        clickedAt: z.date().nullable().describe("When a click on it was reported"),
      }),
    )
    .describe("Its push deliveries, one per subscription"),
  funnel: pushFunnelOutput,
});

export type EventResult = z.infer<typeof eventResultOutput>;
