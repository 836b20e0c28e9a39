// Inputs of the account procedures (docs/api.md#accounts). Strict objects: an extra field, a non-string id
// or role, NUL and lone surrogates are 400, so what is checked is exactly what the act receives.
import { z } from "zod";
import { MAX_BAN_DAYS, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, roleNames } from "../../../db/schema/account-values.js";
import { nonBlank, storableText } from "../../http/text.js";

const MAX_NAME_LENGTH = 100;
const MAX_REASON_LENGTH = 500;
const MAX_SEARCH_LENGTH = 200;

export const userIdField = storableText()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .meta({
    description: "The user's id (as `GET /api/admin/users` lists it). An id that names no user is 404.",
    examples: ["wVq4bT2Ykz0m9f1nH6sJxA3cLr8eUo5P"],
  });

const password = storableText()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)
  .meta({
    description: `The new password, ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters; never stored or shown (its hash only)`,
    examples: ["a-long-first-password"],
  });

const role = z.enum(roleNames, { error: `must be one of ${roleNames.join(", ")}` }).meta({ description: "user or admin, nothing else" });

export const listUsersInput = z.strictObject({
  search: storableText().max(MAX_SEARCH_LENGTH, `must be at most ${MAX_SEARCH_LENGTH} characters`).optional().meta({
    description: "Part of an e-mail address or name, any case; `%`, `_` and `\\` are ordinary characters. Absent: everyone.",
  }),
  limit: z.number().int().min(1).max(100).default(20).meta({ description: "Users on a page, 1 to 100 (default 20)" }),
  offset: z.number().int().min(0).default(0).meta({ description: "Users to skip, by e-mail (default 0)" }),
});

export const createUserInput = z.strictObject({
  email: z
    .email({ error: "must be an e-mail address" })
    .max(254, "must be at most 254 characters")
    .meta({ description: "The sign-in address; stored in lower case. One already in use is 409.", examples: ["bob@example.com"] }),
  password,
  name: nonBlank(storableText().max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)).meta({
    description: `How the console names the person, 1 to ${MAX_NAME_LENGTH} characters`,
    examples: ["Bob"],
  }),
  role: role.optional().meta({
    description:
      "user (default) or admin; admin while approvals are required: the account is made as user and the grant waits for a second admin (202)",
  }),
});

export const setRoleInput = z.strictObject({ id: userIdField, role });
export const setPasswordInput = z.strictObject({ id: userIdField, password });

export const banUserInput = z.strictObject({
  id: userIdField,
  reason: nonBlank(storableText().max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`)).meta({
    description: `Why, 1 to ${MAX_REASON_LENGTH} characters; the audit trail keeps it`,
    examples: ["Shared their account"],
  }),
  expiresInDays: z
    .number()
    .int()
    .min(1)
    .max(MAX_BAN_DAYS)
    .nullish()
    .meta({ description: `Days until the ban ends, 1 to ${MAX_BAN_DAYS}; absent or null: until an admin unbans`, examples: [7] }),
});

export const userIdInput = z.strictObject({ id: userIdField });

export type ListUsersInput = z.infer<typeof listUsersInput>;
export type CreateUserInput = z.infer<typeof createUserInput>;
