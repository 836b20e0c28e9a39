// What the four-eyes search holds after every act (test/integration/four-eyes-search.test.ts), in the words
// of docs/guarantees.md: every applied gated change was approved by a person other than the requester and
// other than anyone who controlled the requester's session or credential, and every act that changed
// something is in the audit trail. Around it: a refused act changes nothing, an attacker's body shape is
// refused, a grant applies to the person reviewed, an impersonation dies with its admin's role, roles are
// user or admin, and an admin is left.
import { sql } from "drizzle-orm";
import { rowsOf, textArray } from "../../db/arrays.js";
import type { Act, Performed } from "./four-eyes-acts.js";
import { passwords } from "./four-eyes-acts.js";
import { eventsOf, type Person, type World } from "./four-eyes-world.js";

/** Whether the act's body shape must be refused whatever its content (an attacker's, not the console's). */
function refusedShape(act: Act): number | null {
  if (
    act.shape === "betterAuth" &&
    ["setRole", "setPassword", "ban", "unban", "remove", "revokeSessions", "impersonate", "updateEmail"].includes(act.kind)
  )
    return 404;
  if (act.shape === "arrayId" && ["setRole", "setPassword", "ban", "unban", "remove", "revokeSessions", "impersonate"].includes(act.kind))
    return 400;
  if (act.shape === "extraField" && ["setRole", "setPassword", "ban", "createUser"].includes(act.kind)) return 400;
  return null;
}

const fail = (world: World, why: string) => {
  throw new Error(`${why}\n  history:\n    ${world.history.join("\n    ")}`);
};

/**
 * Checks one act's answer against the tables before and after it, then learns from it: new credentials,
 * who now knows a password, what was filed, and (for an approval) whether it was a second person's.
 */
export async function judgeAct(
  world: World,
  act: Act,
  done: Performed,
  before: string,
  after: string,
  controllersBefore: Map<string, Set<Person>>,
) {
  const { answer, credential, target } = done;
  world.history.push(
    `${act.person} ${act.kind}(${act.shape}) as ${credential.account}${credential.impersonatedBy ? "*" : ""} on ${target.id} → ${answer.status}`,
  );
  const outcome = `${act.kind}${act.shape === "plain" ? "" : `(${act.shape})`}${credential.impersonatedBy ? " impersonating" : ""} ${answer.status}`;
  world.outcomes.set(outcome, (world.outcomes.get(outcome) ?? 0) + 1);
  const shape = refusedShape(act);
  // better-auth's admin paths are closed to everyone (404); a malformed body is refused, by its shape or, for a
  // caller who may not act at all, by that (401, 403).
  if (shape !== null && (shape === 404 ? answer.status !== 404 : answer.status < 400 || answer.status >= 500))
    fail(world, `an attacker's body (${act.shape}) was not refused: ${answer.status}`);
  // The one refusal that writes: an approval whose impact changed marks the request stale (409), audited.
  const staleDecision = act.kind === "approve" && answer.status === 409 && (await eventsOf(world.app, answer.requestId)) > 0;
  if (answer.status >= 400 && before !== after && !staleDecision) fail(world, `a refused act (${answer.status}) changed the tables`);
  if (staleDecision) world.filed.delete(done.request!);
  if (answer.status < 400 && !answer.changesNothing && before !== after && (await eventsOf(world.app, answer.requestId)) === 0)
    fail(world, `${act.kind} changed the tables and wrote no audit event`);
  if (answer.status >= 300) return;
  const data = answer.data ?? {};
  switch (act.kind) {
    case "impersonate":
      world.credentials.push({ token: String(data.token), account: target.id, holder: act.person, impersonatedBy: credential.account });
      break;
    case "setPassword":
      world.knows.set(target.id, new Set([act.person]));
      passwords.set(target.id, `${target.id}-${act.person}-password`);
      break;
    case "createUser": {
      const user = data.user as { id: string; email: string };
      world.accounts.push({ id: user.id, email: user.email, owner: act.person });
      world.knows.set(user.id, new Set([act.person]));
      passwords.set(user.id, `${user.email}-password`);
      if (data.changeRequest) await file(world, act.person, credential.account, String((data.changeRequest as { id: string }).id), user.id);
      break;
    }
    case "setRole":
      if (data.changeRequest)
        await file(world, act.person, credential.account, String((data.changeRequest as { id: string }).id), target.id);
      break;
    case "fileCohort":
    case "filePro":
      await file(world, act.person, credential.account, String((data.changeRequest as { id: string }).id));
      break;
    case "approve": {
      const filed = world.filed.get(done.request!)!;
      const controllers = controllersBefore.get(filed.requester) ?? new Set();
      if (act.person === filed.filer || filed.requesterControllers.has(act.person) || controllers.has(act.person))
        fail(world, `${act.person} approved a change ${filed.filer} filed as ${filed.requester}, which ${act.person} controlled`);
      if (filed.target) {
        // The grant applies to the person reviewed: nobody new can act as the new admin.
        const now = await world.controllers(filed.target.account);
        for (const person of now)
          if (!filed.target.controllers.has(person)) fail(world, `the new admin ${filed.target.account} is now also ${person}'s`);
      }
      world.filed.delete(done.request!);
      break;
    }
    case "reject":
    case "cancel":
      world.filed.delete(done.request!);
      break;
  }
}

async function file(world: World, filer: Person, requester: string, id: string, target?: string) {
  world.filed.set(id, {
    filer,
    requester,
    requesterControllers: await world.controllers(requester),
    ...(target ? { target: { account: target, controllers: await world.controllers(target) } } : {}),
  });
}

/** What holds of the whole service after every act, read from its tables and its answers. */
export async function checkService(world: World) {
  const db = world.app.db.db;
  const roles = rowsOf<{ role: string; n: number }>(await db.execute(sql`select role, count(*)::int as n from users group by role`));
  for (const { role } of roles) if (role !== "user" && role !== "admin") fail(world, `a role that is neither user nor admin: ${role}`);
  const acting = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from users where role = 'admin' and (banned is not true or ban_expires < now())`),
  );
  if (acting[0]!.n === 0) fail(world, "no admin is left");
  // Every admin of this run started as one, or became one by an applied grant.
  const ids = world.accounts.map((a) => a.id);
  const granted = rowsOf<{ target_id: string; request: string | null }>(
    await db.execute(sql`select target_id, details->>'changeRequestId' as request from audit_events
      where action = 'user.set_role' and after->>'role' = 'admin' and target_id = any(${textArray(ids)})`),
  );
  for (const grant of granted) if (!grant.request) fail(world, `${grant.target_id} was made an admin without an approved request`);
  const gated = rowsOf<{ action: string; request: string | null }>(
    await db.execute(sql`select action, details->>'changeRequestId' as request from audit_events
      where action in ('cohort.activate', 'pro.activate') and request_id like 'search-%'`),
  );
  for (const change of gated) if (!change.request) fail(world, `${change.action} was applied without an approved request`);
  // An impersonation session lives only while its admin is an admin, and never as an admin.
  const admins = new Set(
    rowsOf<{ id: string }>(
      await db.execute(sql`select id from users where role = 'admin' and (banned is not true or ban_expires < now())`),
    ).map((r) => r.id),
  );
  for (const credential of world.credentials) {
    if (!credential.impersonatedBy) continue;
    if ((!admins.has(credential.impersonatedBy) || admins.has(credential.account)) && (await world.live(credential)))
      fail(world, `an impersonation of ${credential.account} by ${credential.impersonatedBy} outlived what made it allowed`);
  }
  await world.prune();
}
