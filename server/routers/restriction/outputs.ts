// What each restriction procedure answers, as zod schemas with a description per field: the REST reference's
// payloads (server/rest/openapi.ts), the REST serializer's schemas and the AppRouter type that apps import
// (server/routers/contract.ts) are made from them. They are not parsed at run time: server/routers/index.ts
// holds each handler's answer type equal to its schema's at compile time, and the suites hold each REST
// answer to the document (test/helpers/contract-check.ts).
import { z } from "zod";
import { auditActions } from "../../../db/schema/audit-actions.js";
import { changeRequestActions, changeRequestStatuses, cohortStatuses, flagChangeVias } from "../../../db/schema/restriction-values.js";

const instant = (what: string) => z.date().describe(`${what} (ISO 8601 date-time, UTC)`);

export const cohortOutput = z
  .object({
    id: z.string().describe("The cohort's id (a UUID)"),
    cohortNumber: z.number().int().describe("The cohort's number, unique among cohorts"),
    proIds: z.array(z.string()).describe("The pros of the cohort, in the order given at creation"),
    status: z.enum(cohortStatuses).describe("pending until activated; active; rolled_back after a rollback"),
    activatedAt: instant("When it was last activated").nullable().describe("When it was last activated; null while pending"),
    rollbackAt: instant("When it was rolled back").nullable().describe("When it was rolled back; null unless rolled_back"),
    rollbackReason: z.string().nullable().describe("The reason given at rollback; null when none was given"),
    createdAt: instant("When it was created"),
  })
  .meta({ id: "Cohort", description: "A rollout cohort: a numbered list of pros whose restriction is switched together" });

export const gateCheckOutput = z
  .object({
    id: z.string().describe("The check's id (a UUID)"),
    cohortId: z.string().describe("The cohort checked"),
    responseRate: z.number().nullable().describe("The response rate given, a fraction from 0 to 1; null when absent"),
    comparisonsDone: z.number().int().nullable().describe("The comparisons done given; null when absent"),
    logLive: z.boolean().describe("Whether the communication log answered at the time of the check"),
    legalSignoff: z.boolean().describe("The legal sign-off given (absent counts as false)"),
    allGatesMet: z.boolean().describe("Whether every gate passed: only then may the cohort be activated"),
    blockedBy: z.string().nullable().describe("The first gate that failed, as activation would say it; null when all passed"),
    checkedAt: instant("When the check was recorded"),
  })
  .meta({ id: "GateCheck", description: "One recorded prerequisite gate check of a cohort" });

export const proStatusOutput = z
  .object({
    proId: z.string().describe("The pro's id"),
    restrictionActive: z.boolean().describe("Whether the restriction applies to the pro now"),
    cohortId: z.string().nullable().describe("The cohort whose activation or rollback set the flag; null when set per pro"),
    updatedAt: instant("When the flag was last set"),
  })
  .meta({ id: "ProStatus", description: "A pro's stored restriction flag" });

const noProStatusOutput = z
  .strictObject({
    proId: z.string().describe("The pro's id"),
    restrictionActive: z.literal(false).describe("Always false: nothing was ever set for this pro"),
  })
  .meta({ id: "NoProStatus", description: "A pro with no stored flag: exactly these two keys (docs/api.md#pro-status)" });

const proFlagChangeOutput = z
  .object({
    at: instant("When the flag changed"),
    restrictionActive: z.boolean().describe("The flag after the change"),
    previous: z.boolean().describe("The flag before the change (false when it had never been set)"),
    via: z.enum(flagChangeVias).describe("pro: set per pro; cohort: by a cohort's activation or rollback"),
    cohortId: z.string().nullable().describe("The cohort that made the change; null when via is pro"),
    cohortNumber: z.number().int().nullable().describe("That cohort's number; null when via is pro"),
    actor: z.object({ id: z.string(), email: z.string() }).describe("The admin who made the change"),
    auditEventId: z.string().describe("The audit event that records the change (GET /api/admin/audit)"),
  })
  .meta({ id: "ProFlagChange", description: "One change of a pro's flag" });

const proIds = (what: string) => z.array(z.string()).describe(what);

export const impactOutput = z
  .object({
    action: z.enum(["activate", "rollback"]).describe("The action previewed"),
    cohortId: z.string().describe("The cohort previewed"),
    blockedBy: z
      .string()
      .nullable()
      .describe("For activate, the message activation would answer with now, or null when it would go ahead; null for rollback"),
    turnOn: proIds("Pros whose flag the action switches on"),
    turnOff: proIds("Pros whose flag the action switches off"),
    unchanged: proIds("Pros whose flag stays as it is"),
    unknownPros: proIds("Pros of the cohort that are not in the pros table (their flag is written all the same)"),
    alsoInOtherActiveCohorts: z
      .array(
        z.object({
          proId: z.string().describe("A pro of this cohort"),
          cohortIds: z.array(z.string()).describe("The other active cohorts that hold it"),
        }),
      )
      .describe("Pros of this cohort that another active cohort also holds: a rollback switches them off even so"),
  })
  .meta({ id: "Impact", description: "What activating or rolling back a cohort would do to each pro's flag" });

/** getPro's answer: the stored flag, or the two keys of a pro with none. */
export const proLookupOutput = z.union([proStatusOutput, noProStatusOutput]);

export const proHistoryOutput = z.object({
  proId: z.string().describe("The pro's id"),
  changes: z.array(proFlagChangeOutput).describe("Every change of the pro's flag, newest first"),
});

const admin = z.object({ id: z.string().describe("The admin's id"), email: z.string().describe("The admin's email address") });

export const changeRequestOutput = z
  .object({
    id: z.string().describe("The change request's id (a UUID)"),
    cohortId: z.string().nullable().describe("The cohort to change; null when the request is about one pro or a user"),
    cohortNumber: z.number().int().nullable().describe("That cohort's number; null without a cohort"),
    proId: z.string().nullable().describe("The pro to switch on (a per-pro activation); null otherwise"),
    userId: z.string().nullable().describe("grant-admin: the user to make an admin; null otherwise"),
    userEmail: z.string().nullable().describe("grant-admin: that user's address when asked; null otherwise"),
    action: z
      .enum(changeRequestActions)
      .describe("What is asked for: activate or rollback (a cohort), activate (one pro), grant-admin (a user)"),
    reason: z.string().nullable().describe("Why; for a rollback, the rollback's reason"),
    status: z
      .enum(changeRequestStatuses)
      .describe(
        "pending, then applied (approved), stale (approved after the impact changed: nothing applied), rejected, cancelled, or expired (pending for 72 hours)",
      ),
    requestedBy: admin.describe("The admin who asked"),
    requestedAt: instant("When it was asked"),
    preview: impactOutput
      .extend({ cohortId: z.string().nullable().describe("The cohort previewed; null for a per-pro activation") })
      .nullable()
      .describe("The impact preview when it was asked: what the approver reviews, and all an approval may apply; null for grant-admin"),
    decidedBy: admin.nullable().describe("The admin who approved, rejected or cancelled it; null while pending"),
    decidedAt: instant("When it was decided").nullable().describe("When it was decided; null while pending"),
    comment: z.string().nullable().describe("The decision's comment"),
    appliedAt: instant("When it was applied").nullable().describe("When the approval applied it; null unless applied"),
  })
  .meta({
    id: "ChangeRequest",
    description: "A request for a cohort's activation or rollback, a pro's activation, or the admin role, waiting for a second admin",
  });

export const changeRequestAnswer = z.object({ changeRequest: changeRequestOutput });
export const changeRequestListOutput = z.object({ changeRequests: z.array(changeRequestOutput).describe("Newest first") });

const alsoInActiveCohorts = z
  .array(
    z.object({
      proId: z.string().describe("A pro of the list"),
      cohortIds: z.array(z.string()).describe("The active cohorts that hold it"),
    }),
  )
  .describe("Pros of the list that an active cohort already holds");

export const newCohortPreviewOutput = z
  .object({
    cohortNumberTaken: z
      .boolean()
      .nullable()
      .describe("Whether another cohort has the number already (creating it would answer 409); null when no number was given"),
    unknownPros: proIds("Pros of the list that are not in the pros table: allowed, but their flag is written all the same"),
    alsoInActiveCohorts,
  })
  .meta({ id: "NewCohortPreview", description: "What creating a cohort of these pros would meet; nothing is written" });

const turnedOffBy = z
  .object({
    at: instant("When the flag was switched off"),
    via: z.enum(flagChangeVias).describe("pro: switched off per pro; cohort: by a cohort's rollback"),
    cohortId: z.string().nullable().describe("The cohort whose rollback switched it off; null when via is pro"),
    cohortNumber: z.number().int().nullable().describe("That cohort's number; null when via is pro"),
    action: z.enum(auditActions).describe("The audit action of the change, e.g. cohort.rollback or pro.rollback"),
    reason: z.string().nullable().describe("The reason recorded with the change (a rollback's); null when none"),
    actor: admin.describe("The admin who made the change"),
    auditEventId: z.string().describe("The audit event that records the change"),
  })
  .describe("The latest change of the pro's flag: the one that left it off");

export const cohortCoverageOutput = z
  .object({
    cohortId: z.string().describe("The cohort"),
    status: z.enum(cohortStatuses).describe("The cohort's status; the coverage matters for an active cohort"),
    restricted: z.number().int().describe("How many of the cohort's pros are restricted now"),
    notRestricted: z
      .array(
        z.object({
          proId: z.string().describe("A pro of the cohort whose restriction is off now"),
          turnedOffBy: turnedOffBy.nullable().describe("The change that left it off; null when its flag was never set"),
        }),
      )
      .describe("The cohort's pros that are not restricted now, in the cohort's order"),
  })
  .meta({
    id: "CohortCoverage",
    description: "How much of a cohort is restricted now, and for each pro that is not, the change that switched it off",
  });
