// Inputs of the restriction procedures. Path ids are plain strings: an id that is not a UUID is
// simply not found (404), never a validation error.
import { z } from "zod";
import { storableText } from "../text.js";

const INT32_MAX = 2_147_483_647;

const proId = storableText()
  .max(200, "must be at most 200 characters")
  .refine((s) => s.trim().length > 0, "must not be empty");

export const cohortIdInput = z.object({ id: z.string() });

export const createCohortInput = z.object({
  cohortNumber: z.number().int().positive().max(INT32_MAX),
  proIds: z
    .array(proId)
    .min(1, "must list at least 1 pro")
    .max(500, "must list at most 500 pros")
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a pro"),
});

export const checkGatesInput = cohortIdInput.extend({
  responseRate: z.number().min(0).max(1).nullish(),
  comparisonsDone: z.number().int().min(0).max(INT32_MAX).nullish(),
  legalSignoff: z.boolean().nullish(),
});

export const rollbackCohortInput = cohortIdInput.extend({
  reason: storableText().max(500, "must be at most 500 characters").nullish(),
});

export const proIdInput = z.object({ proId });

export type CreateCohortInput = z.infer<typeof createCohortInput>;
export type CheckGatesInput = z.infer<typeof checkGatesInput>;
export type RollbackCohortInput = z.infer<typeof rollbackCohortInput>;
