// Inputs of the notifications procedures: plain values (the REST adapter reads query strings into them).
// Path ids are plain strings: a non-UUID id is simply not found. Fields carry a description and an example
// (.meta), which /openapi.json and /docs show.
import { z } from "zod";
import { CATEGORIES } from "../../db/categories.js";
import { nonBlank, storableText } from "../http/text.js";
import { MAX_ENDPOINT_LENGTH } from "../push/endpoint.js";
import { TOPIC_PATTERN, TOPIC_RULE } from "../push/topic.js";
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH, MAX_TYPE_LENGTH, MAX_URL_LENGTH } from "./limits.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./pagination.js";
import { isNotificationUrl, NOTIFICATION_URL_RULE } from "./urls.js";

const required = (max: number) =>
  nonBlank(
    storableText({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).max(
      max,
      `must be at most ${max} characters`,
    ),
  );

/**
 * Optional text; an empty string counts as absent. The meta goes before the transform: z.toJSONSchema
 * (io "input") drops the examples of a transformed schema.
 */
const optionalText = (max: number, meta: z.GlobalMeta, rule?: { holds(s: string): boolean; message: string }) =>
  storableText()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s === "" || !rule || rule.holds(s), rule?.message)
    .nullish()
    .meta(meta)
    .transform((s) => (s ? s : null));

/** Any string: one of the categories filters by it, anything else means no filter. */
const category = z
  .union([z.enum(CATEGORIES), z.string()])
  .optional()
  .meta({
    description: `Only notifications of this category: ${CATEGORIES.join(", ")}. Any other value means no category filter.`,
    examples: ["billing"],
  });

export const listInput = z
  .object({
    category,
    search: storableText()
      .max(200, "must be at most 200 characters")
      .optional()
      .meta({
        description: "Only notifications whose title or body contains this text, case-insensitively (% _ and \\ match themselves)",
        examples: ["invoice"],
      }),
    page: z
      .number()
      .optional()
      .meta({
        description: "Page number, from 1 (the default): fractions are floored, anything below 1 is 1",
        examples: [2],
      }),
    limit: z
      .number()
      .optional()
      .meta({
        description: `Page size: default ${DEFAULT_LIMIT} (also for 0), fractions floored, clamped to 1..${MAX_LIMIT}`,
        examples: [DEFAULT_LIMIT],
      }),
  })
  .default({});

export const notificationIdInput = z.object({
  id: z.string().meta({
    description: "The notification's id. 404 when there is no such notification, 403 when it is someone else's.",
    examples: ["5f0c7a52-2d1e-4b8f-9c3a-6e4d2b1a0f9e"],
  }),
});

export const markAllReadInput = z.object({ category }).default({});

const IDS_REQUIRED = "ids array required and non-empty";
export const removeManyInput = z.object({
  ids: z
    .array(z.string().max(100, "must be at most 100 characters"), { error: IDS_REQUIRED })
    .min(1, IDS_REQUIRED)
    .max(1000, "must list at most 1000 ids")
    .meta({
      description:
        "The notifications to soft-delete, 1 to 1000 ids. Ids that are not the caller's, already deleted, " +
        "unknown or malformed are skipped.",
      examples: [["5f0c7a52-2d1e-4b8f-9c3a-6e4d2b1a0f9e", "0b9e3f4d-8a7c-4d21-b6e5-3c2f1a0e9d8c"]],
    }),
});

/** The keys a browser's PushSubscription.toJSON() gives: base64url, 65-byte P-256 point, 16-byte secret. */
const base64urlKey = (bytes: number, what: string) =>
  required(200).refine(
    (s) => /^[A-Za-z0-9_-]+={0,2}$/.test(s) && Buffer.from(s, "base64url").length === bytes,
    `must be the base64url-encoded ${bytes}-byte ${what}`,
  );

const PUSH_ENDPOINT_EXAMPLE = "https://fcm.googleapis.com/fcm/send/cV9x3kR2:APA91bH";

export const subscribeInput = z.object({
  // The protocol rule depends on the server's settings, so the handler checks it (endpointProblem).
  endpoint: required(MAX_ENDPOINT_LENGTH).meta({
    description:
      "The push service URL the browser gave (PushSubscription.toJSON().endpoint): an absolute https: URL " +
      `of at most ${MAX_ENDPOINT_LENGTH} characters, without credentials (docs/api.md#push-endpoints). Posting ` +
      "a known endpoint again updates that subscription.",
    examples: [PUSH_ENDPOINT_EXAMPLE],
  }),
  p256dh: base64urlKey(65, "P-256 public key").meta({
    description: "The browser's public key (toJSON().keys.p256dh): base64url of a 65-byte P-256 point.",
    examples: ["BI0PwUwf_xku-ODcXSbloojYFUBU__vv9gzht8gQz9cJdzIHhD34VysqZs--V-c2yheAo-az8jaJIlG1ucyUDRw"],
  }),
  auth: base64urlKey(16, "auth secret").meta({
    description: "The browser's auth secret (toJSON().keys.auth): base64url of 16 bytes.",
    examples: ["RdofloKikapRKTgIMiuRaA"],
  }),
});

export const unsubscribeInput = z.object({
  endpoint: required(MAX_ENDPOINT_LENGTH).meta({
    description: "The endpoint of the caller's subscription to deactivate. Succeeds also when none matches.",
    examples: [PUSH_ENDPOINT_EXAMPLE],
  }),
});

export const testNotificationInput = z.object({
  type: required(MAX_TYPE_LENGTH).meta({
    description: `The event type, at most ${MAX_TYPE_LENGTH} characters. Its part before the first \`.\` decides the category.`,
    examples: ["message.received"],
  }),
  title: required(MAX_TITLE_LENGTH).meta({ description: `The title, at most ${MAX_TITLE_LENGTH} characters.`, examples: ["New message"] }),
  targetUserId: required(200).meta({
    description: "The id of the user who receives it. 404 when there is no such user.",
    examples: ["Xq3v9LmT2pRk8sWd"],
  }),
  body: optionalText(MAX_BODY_LENGTH, {
    description: `Text under the title, at most ${MAX_BODY_LENGTH} characters. Empty counts as absent.`,
    examples: ["Hi! Are you free on Tuesday?"],
  }),
  url: optionalText(
    MAX_URL_LENGTH,
    {
      description:
        `Where a click leads, at most ${MAX_URL_LENGTH} characters, an absolute https: URL or a path starting with / (not //): ` +
        "kept as the notification's data.url, sent in the push payload. Empty counts as absent.",
      examples: ["/inbox"],
    },
    { holds: isNotificationUrl, message: NOTIFICATION_URL_RULE },
  ),
  topic: z
    .string()
    .regex(TOPIC_PATTERN, TOPIC_RULE)
    .optional()
    .meta({ description: "Push only: the RFC 8030 Topic header, 1 to 32 of A-Z a-z 0-9 - _", examples: ["test"] }),
});

const channelChoice = z
  .strictObject({
    inApp: z
      .boolean()
      .optional()
      .meta({ description: "In-app notifications of this category: stored in the inbox", examples: [true] }),
    push: z
      .boolean()
      .optional()
      .meta({ description: "Web Push messages of this category", examples: [false] }),
  })
  .optional();

/** Any part of the preferences: the categories and channels it names change, the rest stay. */
export const preferencesPatchInput = z
  .strictObject(
    Object.fromEntries(
      CATEGORIES.map((category) => [
        category,
        channelChoice.meta({ description: `The channels of ${category} notifications; a channel left out keeps its value` }),
      ]),
    ) as Record<(typeof CATEGORIES)[number], typeof channelChoice>,
  )
  .meta({ description: "Per category, the channels to change", examples: [{ billing: { push: false } }] });

export type ListInput = z.infer<typeof listInput>;
export type PreferencesPatch = z.infer<typeof preferencesPatchInput>;
export type MarkAllReadInput = z.infer<typeof markAllReadInput>;
export type RemoveManyInput = z.infer<typeof removeManyInput>;
export type SubscribeInput = z.infer<typeof subscribeInput>;
export type UnsubscribeInput = z.infer<typeof unsubscribeInput>;
export type TestNotificationInput = z.infer<typeof testNotificationInput>;
