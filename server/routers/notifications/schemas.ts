// Inputs of the notifications procedures: plain values (the REST adapter reads query strings into them).
// Path ids are plain strings: a non-UUID id is simply not found.
import { z } from "zod";
import { MAX_ENDPOINT_LENGTH } from "../../push/endpoint.js";
import { storableText } from "../text.js";
import { CATEGORIES } from "./categories.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./pagination.js";

const required = (max: number) =>
  storableText({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, "must not be empty");

/** Optional text; an empty string counts as absent. */
const optionalText = (max: number) =>
  storableText()
    .max(max, `must be at most ${max} characters`)
    .nullish()
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

export const notificationIdInput = z.object({ id: z.string() });

export const markAllReadInput = z.object({ category }).default({});

const IDS_REQUIRED = "ids array required and non-empty";
export const removeManyInput = z.object({
  ids: z
    .array(z.string().max(100, "must be at most 100 characters"), { error: IDS_REQUIRED })
    .min(1, IDS_REQUIRED)
    .max(1000, "must list at most 1000 ids"),
});

/** The keys a browser's PushSubscription.toJSON() gives: base64url, 65-byte P-256 point, 16-byte secret. */
const base64urlKey = (bytes: number, what: string) =>
  required(200).refine(
    (s) => /^[A-Za-z0-9_-]+={0,2}$/.test(s) && Buffer.from(s, "base64url").length === bytes,
    `must be the base64url-encoded ${bytes}-byte ${what}`,
  );

export const subscribeInput = z.object({
  // The protocol rule depends on the server's settings, so the handler checks it (endpointProblem).
  endpoint: required(MAX_ENDPOINT_LENGTH),
  p256dh: base64urlKey(65, "P-256 public key"),
  auth: base64urlKey(16, "auth secret"),
});

export const unsubscribeInput = z.object({ endpoint: required(MAX_ENDPOINT_LENGTH) });

export const testNotificationInput = z.object({
  type: required(100),
  title: required(200),
  targetUserId: required(200),
  body: optionalText(2000),
  url: optionalText(2048),
});

export type ListInput = z.infer<typeof listInput>;
export type MarkAllReadInput = z.infer<typeof markAllReadInput>;
export type RemoveManyInput = z.infer<typeof removeManyInput>;
export type SubscribeInput = z.infer<typeof subscribeInput>;
export type UnsubscribeInput = z.infer<typeof unsubscribeInput>;
export type TestNotificationInput = z.infer<typeof testNotificationInput>;
