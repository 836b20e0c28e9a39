// Assertions on procedure calls (createCaller): a validation error that names a field, and the stored
// restriction status of a set of pros.
import { expect } from "vitest";
import type { RestrictionApi } from "./fixtures.js";

/** The call fails as the contract's VALIDATION_ERROR (tRPC BAD_REQUEST), with details naming `field`. */
export const expectValidationError = (promise: Promise<unknown>, field: string) =>
  expect(promise).rejects.toMatchObject({
    code: "BAD_REQUEST",
    kind: "VALIDATION_ERROR",
    details: expect.arrayContaining([expect.objectContaining({ field })]),
  });

/** The call fails with the domain error of this kind (and, when given, exactly this message). */
export const expectAppError = (promise: Promise<unknown>, kind: string, message?: string) =>
  expect(promise).rejects.toMatchObject({ kind, ...(message === undefined ? {} : { message }) });

/** Each pro's restriction status, in the order given. */
export const proStatuses = (api: RestrictionApi, proIds: string[]) => Promise.all(proIds.map((proId) => api.getPro({ proId })));

/** Every one of these pros has a stored status (a write time) with this flag and cohort tag. */
export async function expectProStatuses(api: RestrictionApi, proIds: string[], restrictionActive: boolean, cohortId: string | null) {
  for (const status of await proStatuses(api, proIds)) {
    expect(status).toMatchObject({ restrictionActive, cohortId });
    expect("updatedAt" in status && status.updatedAt).toBeInstanceOf(Date);
  }
}
