// Shared inputs and records for the integration tests: gate check inputs that pass and fail, pro ids no
// other test uses, registered pros, cohorts (through the procedures, or straight into the database), the
// signed-in personas, and push subscription keys.
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client.js";
import { gateChecks, pros, restrictionCohorts } from "../../db/schema/index.js";
import { type TestApp, type TestUser, uniqueCohortNumber } from "./app.js";

// ---- gate checks ----

/** A gate check input that passes every gate, each exactly at its threshold. */
export const PASSING_GATES = { responseRate: 0.6, comparisonsDone: 50, legalSignoff: true } as const;
/** A gate check input that fails every gate but the live log: comparisons and sign-off are left out. */
export const FAILING_GATES = { responseRate: 0.5 } as const;
/** What a check of FAILING_GATES records as `blockedBy`, and what activation then says after "by unmet gates: ". */
export const FAILING_GATES_BLOCKED_BY = "response_rate 0.5 < 0.6; comparisons_done 0 < 50; legal_signoff missing";
/** What a gate check with no inputs at all records: absent inputs as null and false, every gate but the live log failed. */
export const EMPTY_CHECK_RECORD = {
  responseRate: null,
  comparisonsDone: null,
  logLive: true,
  legalSignoff: false,
  allGatesMet: false,
  blockedBy: "response_rate 0 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
} as const;
/** The contract's message for activating a cohort that has no gate check. */
export const NO_CHECK = "Activation blocked: no gate check has been run for this cohort. Run check-gates first.";

// ---- pros ----

/** `prefix-<random>`: an id no other test uses. */
export const freshId = (prefix: string) => `${prefix}-${randomBytes(6).toString("hex")}`;

/** n pro ids no other test uses, in the order the database sorts them. */
export function newProIds(n: number): string[] {
  const prefix = freshId("pro");
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
}

/** Registers these pros (the per-pro routes need a registered pro; cohorts do not). */
export async function registerPros(db: Db, ids: string[]): Promise<void> {
  await db.insert(pros).values(ids.map((id) => ({ id, name: `Pro ${id}` })));
}

/** A new registered pro's id. */
export async function registeredPro(db: Db): Promise<string> {
  const [id] = newProIds(1) as [string];
  await registerPros(db, [id]);
  return id;
}

// ---- cohorts ----

export type RestrictionApi = ReturnType<TestApp["caller"]>["restriction"];

/** The restriction procedures as a new platform admin. */
export async function adminRestrictionApi(app: TestApp): Promise<RestrictionApi> {
  return app.caller(await app.signUp({ admin: true })).restriction;
}

/** A pending cohort of these pros (two new ones by default), with a cohort number no other test uses. */
export const newCohort = (api: RestrictionApi, proIds: string[] = newProIds(2)) =>
  api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });

/** A pending cohort whose latest gate check passed: ready to activate. */
export async function passedCohort(api: RestrictionApi, proIds: string[] = newProIds(2)) {
  const cohort = await newCohort(api, proIds);
  await api.checkGates({ id: cohort.id, ...PASSING_GATES });
  return cohort;
}

/** A cohort whose latest gate check passed, activated. */
export async function activeCohort(api: RestrictionApi, proIds: string[] = newProIds(2)) {
  const cohort = await passedCohort(api, proIds);
  return api.activateCohort({ id: cohort.id });
}

/**
 * A pending cohort written straight to the database (no caller needed), of two new pros unless told;
 * `passingCheck` adds a passing gate check, so it can be activated.
 */
export async function insertCohort(
  db: Db,
  options: { cohortNumber?: number; proIds?: string[]; passingCheck?: boolean } = {},
): Promise<typeof restrictionCohorts.$inferSelect> {
  const [row] = await db
    .insert(restrictionCohorts)
    .values({ cohortNumber: options.cohortNumber ?? uniqueCohortNumber(), proIds: options.proIds ?? newProIds(2) })
    .returning();
  if (options.passingCheck) {
    await db.insert(gateChecks).values({ cohortId: row!.id, ...PASSING_GATES, logLive: true, allGatesMet: true, blockedBy: null });
  }
  return row!;
}

// ---- people ----

/** A normal user, another normal user (who owns none of the first one's records), and a platform admin. */
export type Personas = { user: TestUser; other: TestUser; admin: TestUser };

export async function signUpPersonas(app: TestApp): Promise<Personas> {
  const user = await app.signUp();
  const other = await app.signUp();
  const admin = await app.signUp({ admin: true });
  return { user, other, admin };
}

// ---- push subscriptions ----

/** `bytes` bytes of `fill`, base64url: the shape of a push subscription key, without a key pair behind it. */
export const keyOfLength = (bytes: number, fill = 4) => Buffer.alloc(bytes, fill).toString("base64url");

/** Keys the service accepts for a subscription that nothing will ever push to (a P-256 point's length and a 16-byte secret). */
export const PUSH_KEYS = { p256dh: keyOfLength(65), auth: keyOfLength(16) } as const;
