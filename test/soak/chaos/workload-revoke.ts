// Sessions and keys revoked mid-run: a fresh session (or key) is used, revoked (a sign-out, a key revocation),
// then tried again for 2 s on random instances. The checker holds every try after the bound to a 401.
import { SEED } from "../settings.js";
import { call, dataOf, instanceCount } from "./client.js";
import { sendRetrying } from "./send.js";
import { actorRng, pause, running, signIn, type World } from "./world.js";

const PROBE_MS = 2_000;

export async function revokeLoop(w: World) {
  const r = actorRng("revoker");
  let n = 0;
  while (running()) {
    n++;
    if (n % 2) {
      const user = w.users[n % w.users.length]!;
      const label = `revocable-${n}`;
      const person = await signIn("revoker", user.email, w.password, label, r.int(instanceCount()));
      if (person) {
        const session = person.session;
        await call({
          actor: "revoker",
          op: "revoker: use session",
          inst: r.int(instanceCount()),
          method: "GET",
          path: "/api/notifications/unread-count",
          session,
        });
        const out = await sendRetrying(r, {
          actor: "revoker",
          op: "revoker: sign out",
          method: "POST",
          path: "/api/auth/sign-out",
          body: {},
          session,
          meta: { revokes: `session:${label}` },
        });
        if (out.outcome === "ok") {
          const until = Date.now() + PROBE_MS;
          while (Date.now() < until) {
            await call({
              actor: "revoker",
              op: "revoker: revoked session",
              inst: r.int(instanceCount()),
              method: "GET",
              path: "/api/notifications/unread-count",
              session,
              meta: { probe: true },
            });
            await pause(50 + r.int(100));
          }
        }
      }
    } else {
      const made = await call({
        actor: "revoker",
        op: "revoker: create key",
        inst: r.int(instanceCount()),
        method: "POST",
        path: "/api/admin/api-keys",
        body: { name: `soak-revocable-${SEED}-${n}`, scopes: ["flags:read"] },
        session: w.adminA.session,
      });
      const key = dataOf<{ apiKey: { id: string }; secret: string }>(made);
      if (key) {
        const apiKey = { secret: key.secret, label: `revocable-${n}` };
        const evaluate = (op: string, meta?: Record<string, unknown>) =>
          call({
            actor: "revoker",
            op,
            inst: r.int(instanceCount()),
            method: "POST",
            path: "/ofrep/v1/evaluate/flags/restrict-direct-contact",
            body: { context: { targetingKey: "soak-pro-0000" } },
            apiKey,
            meta,
          });
        await evaluate("revoker: use key");
        const out = await sendRetrying(r, {
          actor: "revoker",
          op: "revoker: revoke key",
          method: "DELETE",
          path: `/api/admin/api-keys/${key.apiKey.id}`,
          session: w.adminA.session,
          meta: { revokes: `key:${apiKey.label}` },
        });
        if (out.outcome === "ok") {
          const until = Date.now() + PROBE_MS;
          while (Date.now() < until) {
            await evaluate("revoker: revoked key", { probe: true });
            await pause(50 + r.int(100));
          }
        }
      }
    }
    await pause(1500 + r.int(2000));
  }
}
