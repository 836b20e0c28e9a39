// This instance's part in the audit log: a loop that seals committed events (server/audit/sealer.ts), signs
// a checkpoint at most every AUDIT_CHECKPOINT_SECONDS and publishes it (checkpoints.ts, publish.ts). Every
// instance runs one; the head row's lock lets one seal at a time. On stop it seals what is left, signs a
// checkpoint whatever its age, and publishes it. Without a signing key the tree is still built and served;
// nothing is signed or published.
import type { Db } from "../../db/client.js";
import { checkpointIfDue } from "./checkpoints.js";
import type { Signer } from "./log/note.js";
import { type Destinations, publishPending } from "./publish.js";
import { sealAll } from "./sealer.js";

export type AuditLogSettings = {
  signer: Signer | null;
  checkpointSeconds: number;
  destinations: Destinations;
  /** Pause between ticks. */
  pollMs?: number;
};

export type AuditLogLoop = { stop(): Promise<void> /** Runs a tick now (tests). */; tick(): Promise<void> };

export const DEFAULT_SEAL_POLL_MS = 500;

export function startAuditLog(db: Db, settings: AuditLogSettings, onError: (err: unknown) => void): AuditLogLoop {
  let running = true;
  let wake: (() => void) | undefined;
  let current: Promise<void> = Promise.resolve();

  async function tick(force = false): Promise<void> {
    await sealAll(db);
    if (!settings.signer) return;
    await checkpointIfDue(db, settings.signer, settings.checkpointSeconds, force);
    await publishPending(db, settings.destinations);
  }
  // Ticks never overlap: a test's tick() or the final one waits for the loop's.
  const serial = (force = false) => {
    current = current.then(() => tick(force)).catch(onError);
    return current;
  };

  const loop = (async () => {
    while (running) {
      await serial();
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, settings.pollMs ?? DEFAULT_SEAL_POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    tick: () => serial(),
    async stop() {
      running = false;
      wake?.();
      await loop;
      await serial(true);
    },
  };
}
