// The four-eyes search (issue X): random sequences of acts by two admins and two users, and whatever
// accounts and credentials they make, against the in-process service with APPROVALS=required. After every act
// the invariant of docs/guarantees.md is checked (test/helpers/four-eyes-invariant.ts): every applied gated
// change was approved by a person other than the requester and other than anyone who controlled the
// requester's session or credential, and every act that changed something is in the audit trail.
//
// FOUR_EYES_SEARCH_RUNS and FOUR_EYES_SEARCH_SEED run it longer or replay a counterexample (docs/machinery.md).
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { type TestApp, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { type Act, actArbitrary, perform } from "../helpers/four-eyes-acts.js";
import { checkService, judgeAct } from "../helpers/four-eyes-invariant.js";
import { PEOPLE, type Person, tablesDigest, World } from "../helpers/four-eyes-world.js";
import { byHand } from "../helpers/memory.js";

const t = useTestApp({ approvals: "required" });

class Step implements fc.AsyncCommand<object, World> {
  constructor(readonly act: Act) {}
  check = () => true;

  async run(_model: object, world: World) {
    // Who controls each filed request's requester right now, before the act may change it.
    const controllers = new Map<string, Set<Person>>();
    if (this.act.kind === "approve")
      for (const filed of world.filed.values()) controllers.set(filed.requester, await world.controllers(filed.requester));
    const before = await tablesDigest(world.app);
    const done = await perform(world, this.act);
    if (!done) return;
    await judgeAct(world, this.act, done, before, await tablesDigest(world.app), controllers);
    await checkService(world);
  }
  toString = () => JSON.stringify(this.act);
}

/**
 * A fresh cast for one run: A and B start as the only admins (earlier runs' admins step down, so "an admin is
 * always left" is this run's to keep), U and V as users; each holds their own session.
 */
async function cast(app: TestApp, outcomes: Map<string, number>): Promise<World> {
  const world = new World(app, outcomes);
  await byHand(app.db.db.update(users).set({ role: "user" }).where(eq(users.role, "admin")));
  for (const person of PEOPLE) {
    const admin = person === "A" || person === "B";
    const user = await app.signUp({ admin });
    world.accounts.push({ id: user.id, email: user.email, owner: person });
    world.knows.set(user.id, new Set([person]));
    world.credentials.push({ token: user.token, account: user.id, holder: person, impersonatedBy: null });
    if (admin) world.startAdmins.add(user.id);
  }
  return world;
}

/**
 * Counterexamples the search found with a fix taken out (docs/machinery.md), replayed as they were printed:
 * each must hold now.
 */
const FOUND: Record<string, Act[]> = {
  // better-auth's admin endpoints open again: an array userId made an admin with no request and no event.
  "set-role through better-auth": [{ kind: "setRole", person: "A", credential: 0, target: 0, pick: 0, role: "admin", shape: "betterAuth" }],
  // A role change that leaves sessions open, and filing from an impersonation: the new admin stays A's.
  "an impersonation outlives its user's grant": [
    { kind: "setRole", person: "A", credential: 0, target: 2, pick: 0, role: "admin", shape: "plain" },
    { kind: "impersonate", person: "A", credential: 0, target: 2, pick: 0, role: "admin", shape: "plain" },
    { kind: "approve", person: "B", credential: 0, target: 0, pick: 0, role: "admin", shape: "plain" },
  ],
  // No identity binding (found at run 155 of 300): A takes over the account B asked to make an admin, then approves it.
  "a grant applied to an account taken over after filing": [
    { kind: "createUser", person: "B", credential: 0, target: 0, pick: 0, role: "admin", shape: "plain" },
    { kind: "setPassword", person: "A", credential: 0, target: 4, pick: 0, role: "user", shape: "plain" },
    { kind: "approve", person: "A", credential: 0, target: 0, pick: 0, role: "user", shape: "plain" },
  ],
  // Found with the same-person rule out, but no rule stopped it: A files, steps down to user, B impersonates the
  // ordinary A and approves A's request while holding A's session. A former admin's request no longer applies.
  "an approver holding the requester's session": [
    { kind: "filePro", person: "A", credential: 0, target: 0, pick: 0, role: "admin", shape: "plain" },
    { kind: "setRole", person: "A", credential: 0, target: 0, pick: 0, role: "user", shape: "plain" },
    { kind: "impersonate", person: "B", credential: 0, target: 0, pick: 0, role: "admin", shape: "plain" },
    { kind: "approve", person: "B", credential: 0, target: 0, pick: 0, role: "admin", shape: "plain" },
  ],
  // Without the last-admin rule: A bans B, then demotes itself, and no admin is left.
  "the last admin steps down": [
    { kind: "ban", person: "A", credential: 0, target: 5, pick: 0, role: "admin", shape: "plain" },
    { kind: "setRole", person: "A", credential: 0, target: 0, pick: 0, role: "user", shape: "plain" },
  ],
  // better-auth's refresh of an impersonation session wrote updated_at on a refused call (migration 0021).
  "a refused call through an impersonation session": [
    { kind: "impersonate", person: "A", credential: 0, target: 2, pick: 0, role: "admin", shape: "plain" },
    { kind: "updateEmail", person: "A", credential: 1, target: 0, pick: 0, role: "admin", shape: "plain" },
  ],
};

const runs = Number(process.env.FOUR_EYES_SEARCH_RUNS ?? (testDbKind() === "postgres" ? 6 : 15));
const seed = process.env.FOUR_EYES_SEARCH_SEED ? Number(process.env.FOUR_EYES_SEARCH_SEED) : undefined;

describe("four-eyes under random acts of admins, users and impersonation sessions", () => {
  for (const [name, acts] of Object.entries(FOUND)) {
    it(`holds in the counterexample once found: ${name}`, async () => {
      const world = await cast(t(), new Map());
      await fc.asyncModelRun(
        () => ({ model: {}, real: world }),
        acts.map((act) => new Step(act)),
      );
    });
  }

  it("no one person applies a gated change, and every change is audited", { timeout: 600_000 }, async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.commands([actArbitrary.map((act) => new Step(act))], { maxCommands: 40, size: "max" }), async (steps) => {
        const world = await cast(t(), outcomes);
        await fc.asyncModelRun(() => ({ model: {}, real: world }), steps);
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }), verbose: 1 },
    );
    // What the search reached, for a reader judging whether it explored (no assertion: the counts vary by seed).
    console.info(
      [...outcomes]
        .sort()
        .map(([outcome, n]) => `${outcome}: ${n}`)
        .join("\n"),
    );
  });
});
