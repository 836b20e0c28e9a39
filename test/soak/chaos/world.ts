// The soak's people and credentials, made through the service before the traffic starts: two admins (from
// ADMIN_EMAILS), users the admins create, API keys for the producer and the OFREP readers, push subscriptions.
import { rng } from "../random.js";
import { PRO_COUNT, proIds, SEED, USERS } from "../settings.js";
import { call, dataOf } from "./client.js";
import { ADMIN_EMAILS, ADMIN_PASSWORD } from "./cluster.js";
import type { PushRecorder } from "./push-recorder.js";

export type Session = { token: string; label: string };
export type Person = { id: string; email: string; password: string; session: Session };
export type Key = { id: string; secret: string; label: string };

/** The pros whose status one admin pair changes one at a time, read by OFREP readers and checked read by read. */
export const WATCHED_PROS = proIds.slice(0, 12);
/** The pros cohorts draw from: never the watched ones, so each watched pro has one writer. */
export const COHORT_PROS = proIds.slice(100, PRO_COUNT);

/** Everything stops at the deadline, or when a signal arrives. */
export const control = { stopping: false, deadline: 0 };
export const running = () => !control.stopping && Date.now() < control.deadline;
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each actor's own seeded PRNG: the seed of the run and the actor's name make its choices. */
export function actorRng(name: string) {
  let h = SEED >>> 0;
  for (const ch of name) h = (Math.imul(h ^ ch.charCodeAt(0), 16777619) + 0x9e3779b9) >>> 0;
  return rng(h);
}

export async function signIn(actor: string, email: string, password: string, label: string, inst = 0): Promise<Person | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const a = await call({
      actor,
      op: "sign in",
      inst,
      method: "POST",
      path: "/api/auth/sign-in/email",
      body: { email, password },
      keepBody: (b) => ({ user: (b as { user?: { id: string } }).user?.id }),
    });
    const body = a.body as { token?: string; user?: { id: string } } | undefined;
    if (a.outcome === "ok" && body?.token && body.user) return { id: body.user.id, email, password, session: { token: body.token, label } };
    await pause(500);
  }
  return null;
}

export async function makeWorld(push: PushRecorder) {
  const adminA = await signIn("setup", ADMIN_EMAILS[0]!, ADMIN_PASSWORD, "admin-a");
  const adminB = await signIn("setup", ADMIN_EMAILS[1]!, ADMIN_PASSWORD, "admin-b");
  if (!adminA || !adminB) throw new Error("the soak's admins could not sign in");
  const users: Person[] = [];
  const password = "correct-horse-battery-staple";
  for (let i = 0; i < USERS; i++) {
    const email = `soak-user-${i}@soak.test`;
    const made = await call({
      actor: "setup",
      op: "admin: create user",
      inst: 0,
      method: "POST",
      path: "/api/admin/users",
      body: { email, password, name: `Soak user ${i}` },
      session: adminA.session,
    });
    if (made.outcome !== "ok") throw new Error(`creating ${email}: ${made.status} ${JSON.stringify(made.body)}`);
    const user = await signIn("setup", email, password, `user-${i}`);
    if (!user) throw new Error(`${email} could not sign in`);
    users.push(user);
  }
  const makeKey = async (name: string, scopes: string[]): Promise<Key> => {
    const a = await call({
      actor: "setup",
      op: "admin: create key",
      inst: 0,
      method: "POST",
      path: "/api/admin/api-keys",
      body: { name, scopes },
      session: adminA.session,
    });
    const d = dataOf<{ apiKey: { id: string }; secret: string }>(a);
    if (!d) throw new Error(`creating key ${name}: ${a.status} ${JSON.stringify(a.body)}`);
    return { id: d.apiKey.id, secret: d.secret, label: name };
  };
  const producerKey = await makeKey(`soak-producer-${SEED}`, ["notifications:write"]);
  const ofrepKey = await makeKey(`soak-ofrep-${SEED}`, ["flags:read"]);
  // Two browsers per user, each an endpoint of the recording push service.
  for (const [i, user] of users.entries()) {
    for (let b = 0; b < 2; b++) {
      const sub = push.subscribe(`u${i}b${b}`);
      const a = await call({
        actor: "setup",
        op: "user: subscribe push",
        inst: 0,
        method: "POST",
        path: "/api/notifications/subscriptions",
        body: sub,
        session: user.session,
      });
      if (a.outcome !== "ok") throw new Error(`subscribing ${user.email}: ${a.status} ${JSON.stringify(a.body)}`);
    }
  }
  return { adminA, adminB, users, producerKey, ofrepKey, makeKey, password };
}

export type World = Awaited<ReturnType<typeof makeWorld>>;

/** A live instance chosen at random (the soak's load balancer): refused connections are retried elsewhere. */
export const pickInstance = (r: ReturnType<typeof rng>, count: number) => r.int(count);
