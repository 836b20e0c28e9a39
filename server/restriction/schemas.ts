// Inputs of the restriction procedures. Path ids are plain strings: an id that is not a UUID is
// simply not found (404), never a validation error. Every field carries a description and an example
// (.meta), which /openapi.json and /docs show.
import { z } from "zod";
import { changeRequestStatuses } from "../../db/schema/restriction-values.js";
import { nonBlank, storableText } from "../http/text.js";
import {
  MAX_CHANGE_REQUEST_TEXT_LENGTH,
  MAX_PRO_ID_LENGTH,
  MAX_PROS_PER_COHORT,
  MAX_ROLLBACK_REASON_LENGTH,
  MIN_BYPASS_REASON_LENGTH,
} from "./limits.js";

const INT32_MAX = 2_147_483_647;

const proId = nonBlank(storableText().max(MAX_PRO_ID_LENGTH, `must be at most ${MAX_PRO_ID_LENGTH} characters`));

export const cohortIdInput = z.object({
  id: z.string().meta({
    description: "The cohort's id, as returned when it was created. An id that names no cohort is 404.",
    examples: ["b8d80106-7951-44af-a9a3-2b30aa3948eb"],
  }),
});

export const createCohortInput = z.object({
  cohortNumber: z
    .number()
    .int()
    .positive()
    .max(INT32_MAX)
    .meta({
      description: "The cohort's number: a positive integer no other cohort has (409 when it is taken).",
      examples: [1],
    }),
  proIds: z
    .array(proId)
    .min(1, "must list at least 1 pro")
    .max(MAX_PROS_PER_COHORT, `must list at most ${MAX_PROS_PER_COHORT} pros`)
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a pro")
    .meta({
      uniqueItems: true,
      description:
        `The pros of the cohort: 1 to ${MAX_PROS_PER_COHORT} ids, none repeated, each 1 to ${MAX_PRO_ID_LENGTH} characters. They need not be ` +
        "registered pros yet.",
      examples: [["pro-0001", "pro-0002"]],
    }),
});

/** A new cohort's preview: creation's body; without a number it reads the pros alone (a pro lookup). */
export const previewNewCohortInput = createCohortInput.partial({ cohortNumber: true });

export const checkGatesInput = cohortIdInput.extend({
  responseRate: z
    .number()
    .min(0)
    .max(1)
    .nullish()
    .meta({
      description: "The pros' response rate as a fraction from 0 to 1 (0.6 is 60 %). The gate needs 0.6; absent counts as 0.",
      examples: [0.72],
    }),
  comparisonsDone: z
    .number()
    .int()
    .min(0)
    .max(INT32_MAX)
    .nullish()
    .meta({
      description: "How many comparisons have been done, an integer from 0. The gate needs 50; absent counts as 0.",
      examples: [64],
    }),
  legalSignoff: z
    .boolean()
    .nullish()
    .meta({ description: "Whether legal has signed the rollout off. The gate needs true; absent counts as false.", examples: [true] }),
});

export const rollbackCohortInput = cohortIdInput.extend({
  reason: storableText()
    .max(MAX_ROLLBACK_REASON_LENGTH, `must be at most ${MAX_ROLLBACK_REASON_LENGTH} characters`)
    .nullish()
    .meta({
      description:
        `Why the cohort is rolled back, at most ${MAX_ROLLBACK_REASON_LENGTH} characters. Absent, null or blank is stored as null. ` +
        `While approvals are required it is needed, with at least ${MIN_BYPASS_REASON_LENGTH} visible characters (letters, digits or punctuation).`,
      examples: ["complaints from pros"],
    }),
});

export const proIdInput = z.object({
  proId: proId.meta({ description: `The pro's id, 1 to ${MAX_PRO_ID_LENGTH} characters.`, examples: ["pro-0001"] }),
});

export const previewCohortInput = cohortIdInput.extend({
  action: z
    .enum(["activate", "rollback"], { error: (issue) => (issue.input === undefined ? "is required" : "must be activate or rollback") })
    .meta({ description: "The action to preview: activate or rollback", examples: ["activate"] }),
});

/** Optional text: absent, null or blank is stored as null. */
const changeText = (description: string, example: string) =>
  storableText()
    .max(MAX_CHANGE_REQUEST_TEXT_LENGTH, `must be at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters`)
    .nullish()
    .meta({ description, examples: [example] });

export const createChangeRequestInput = previewCohortInput.extend({
  reason: changeText(
    `Why the change is asked for, at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters; for a rollback it becomes the rollback's reason. Blank is stored as null.`,
    "gates passed on 2026-11-20",
  ),
});

export const createProChangeRequestInput = proIdInput.extend({
  action: z
    .enum(["activate"], { error: (issue) => (issue.input === undefined ? "is required" : "must be activate") })
    .meta({ description: "What is asked for: activate (a pro's rollback never waits for approval)", examples: ["activate"] }),
  reason: changeText(
    `Why the pro is switched on, at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters. Blank is stored as null.`,
    "opted in",
  ),
});

export const changeRequestIdInput = z.object({
  id: z
    .string()
    .meta({ description: "The change request's id. An id that names none is 404.", examples: ["0e5b3c9a-2f61-4c0e-9d3b-6a1f2e4d5c7b"] }),
});

export const approveChangeRequestInput = changeRequestIdInput.extend({
  comment: changeText(`A comment on the approval, at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters`, "checked the preview"),
});

export const rejectChangeRequestInput = changeRequestIdInput.extend({
  comment: nonBlank(
    storableText({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).max(
      MAX_CHANGE_REQUEST_TEXT_LENGTH,
      `must be at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters`,
    ),
  ).meta({
    description: `Why the request is rejected (required), at most ${MAX_CHANGE_REQUEST_TEXT_LENGTH} characters`,
    examples: ["wait for legal"],
  }),
});

export const listChangeRequestsInput = z
  .object({
    status: z
      .enum(changeRequestStatuses, { error: `must be one of ${changeRequestStatuses.join(", ")}` })
      .optional()
      .meta({ description: "Only requests in this status (a pending one older than 72 hours is expired)", examples: ["pending"] }),
    cohortId: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "Only the requests of this cohort", examples: ["b8d80106-7951-44af-a9a3-2b30aa3948eb"] }),
  })
  .default({});

export type CreateCohortInput = z.infer<typeof createCohortInput>;
export type PreviewNewCohortInput = z.infer<typeof previewNewCohortInput>;
export type CreateChangeRequestInput = z.infer<typeof createChangeRequestInput>;
export type CreateProChangeRequestInput = z.infer<typeof createProChangeRequestInput>;
export type ChangeRequestDecisionInput = z.infer<typeof approveChangeRequestInput>;
export type ListChangeRequestsInput = z.infer<typeof listChangeRequestsInput>;
export type CheckGatesInput = z.infer<typeof checkGatesInput>;
export type RollbackCohortInput = z.infer<typeof rollbackCohortInput>;
