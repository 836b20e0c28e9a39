// better-auth runs in AsyncLocalStorages, and so does a keyed request; on Node 20 each one enabled makes
// every later promise of the process pay a hook, so the hot reads after the first sign-in were ~20 % slower
// than the bench measured (issue AE). Once the call that ran them ends, they are off again
// (server/http/async-context.ts), and what ran in them still works.
import {
  getCurrentAuthContextAsyncLocalStorage,
  getCurrentDBAdapterAsyncLocalStorage,
  getRequestStateAsyncLocalStorage,
} from "@better-auth/core/context";
import { describe, expect, it } from "vitest";
import { asyncContextUses } from "../../server/http/async-context.js";
import { useTestApp } from "../helpers/app.js";
import { storageEnabled } from "../helpers/async-context.js";

const t = useTestApp();

const betterAuthStorages = async () =>
  Promise.all([getRequestStateAsyncLocalStorage(), getCurrentAuthContextAsyncLocalStorage(), getCurrentDBAdapterAsyncLocalStorage()]);

describe("AsyncLocalStorages between requests", () => {
  it("are off after sign-ups, sign-ins and sessions read through better-auth, which all keep working", async () => {
    const [alice, bob] = await Promise.all([t().signUp(), t().signUp()]);
    const sessions = await Promise.all(
      [alice, bob].map((user) => t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: user.headers })),
    );
    expect(sessions.map((res) => [res.statusCode, res.json().user.id])).toEqual([
      [200, alice.id],
      [200, bob.id],
    ]);
    expect((await betterAuthStorages()).map(storageEnabled)).toEqual([false, false, false]);
    expect(asyncContextUses()).toBe(0);
  });

  it("are off after keyed requests that overlap, each of which was answered as its own", async () => {
    const user = await t().signUp();
    const answers = await Promise.all(
      ["one", "two", "three"].map((key) =>
        t().app.inject({
          method: "PATCH",
          url: "/api/notifications/read-all",
          headers: { ...user.headers, "idempotency-key": `${key}-${user.id}` },
        }),
      ),
    );
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200]);
    expect(asyncContextUses()).toBe(0);
    expect((await betterAuthStorages()).map(storageEnabled)).toEqual([false, false, false]);
  });
});
