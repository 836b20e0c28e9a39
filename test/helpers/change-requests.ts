// Change requests for tests: straight into the table, with the impact preview the service would take now.
import type { Db } from "../../db/client.js";
import { changeRequests, users } from "../../db/schema/index.js";
import { impactNow } from "../../server/restriction/preview.js";

export async function insertChangeRequest(
  db: Db,
  request: { cohortId: string; action: "activate" | "rollback"; requestedBy: { id: string; email: string }; requestedAt?: Date },
): Promise<string> {
  const preview = await impactNow(db, request.cohortId, request.action);
  // A request applies only while its requester is an admin (change-requests.ts): OTHER_ADMIN exists as one.
  if (request.requestedBy.id === OTHER_ADMIN.id) {
    await db
      .insert(users)
      .values({ ...OTHER_ADMIN, name: "Other Admin", role: "admin" })
      .onConflictDoNothing();
  }
  const [row] = await db
    .insert(changeRequests)
    .values({
      cohortId: request.cohortId,
      action: request.action,
      requestedById: request.requestedBy.id,
      requestedByEmail: request.requestedBy.email,
      preview,
      ...(request.requestedAt ? { requestedAt: request.requestedAt } : {}),
    })
    .returning({ id: changeRequests.id });
  return row!.id;
}

/** Someone other than any test user: the requester an approving admin is not. */
export const OTHER_ADMIN = { id: "other-admin", email: "other-admin@test.local" };
