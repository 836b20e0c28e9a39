// Answers of the account procedures (docs/api.md#accounts). Never parsed at run time (contract.ts).
import { z } from "zod";
import { changeRequestOutput } from "../restriction/outputs.js";

const instant = (what: string) => z.date().describe(`${what} (ISO 8601 date-time, UTC)`);

export const userOutput = z
  .object({
    id: z.string().describe("The user's id"),
    name: z.string().describe("The user's name"),
    email: z.string().describe("The sign-in address, in lower case"),
    role: z.string().describe("user or admin"),
    banned: z.boolean().describe("Whether the user is banned (see banExpires)"),
    banReason: z.string().nullable().describe("Why, while banned"),
    banExpires: instant("When the ban ends").nullable().describe("When the ban ends; null for a ban without an end, or no ban"),
    createdAt: instant("When the account was made"),
  })
  .meta({ id: "User", description: "An account as admins see it: never its password or sessions" });

export const userListOutput = z.object({
  users: z.array(userOutput).describe("By e-mail address"),
  total: z.number().int().describe("How many users match the search, on every page"),
});

export const userAnswer = z.object({ user: userOutput });

export const userChangeOutput = z.object({
  user: userOutput.describe("The user as they are now"),
  changeRequest: changeRequestOutput
    .optional()
    .describe("Present when the admin role waits for a second admin's approval (APPROVALS=required); REST answers 202 then"),
});

export const sessionsEndedOutput = z.object({ sessionsEnded: z.number().int().describe("How many sessions ended") });

export const impersonationOutput = z.object({
  token: z.string().describe("The impersonation session's bearer token (Authorization: Bearer <token>); shown once"),
  expiresAt: instant("When the session ends, an hour at most after it began"),
});

export const impersonationStoppedOutput = z.object({ ended: z.literal(true).describe("The impersonation session has ended") });
