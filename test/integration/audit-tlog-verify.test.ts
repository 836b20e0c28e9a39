// The audit log end to end (docs/guarantees.md "Audit log"): admin changes, checkpoints signed and written
// outside the database, the export, and the offline verifier (npm run audit:verify) run as an auditor would.
// Then a database superuser rewrites history four ways, and the verifier names the leaf each time.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/client.js";
import { sealAll } from "../../server/audit/sealer.js";
import { createTestApp, type TestApp, type TestUser } from "../helpers/app.js";
import { writeEvent } from "../helpers/audit-log.js";
import { auditLogSettings, auditVerify, checkpointNow, exportToFile } from "../helpers/audit-log-world.js";
import { adminRestrictionApi, newCohort } from "../helpers/fixtures.js";

let app: TestApp;
let admin: TestUser;
const log = auditLogSettings();

/** As a superuser who may switch the append-only triggers off: runs `change`, then puts the triggers back. */
async function asSuperuser(db: Db, change: () => Promise<unknown>) {
  await db.execute(sql`alter table audit_events disable trigger user`);
  await db.execute(sql`alter table audit_log_leaves disable trigger user`);
  await db.execute(sql`alter table audit_log_nodes disable trigger user`);
  try {
    await change();
  } finally {
    await db.execute(sql`alter table audit_events enable trigger user`);
    await db.execute(sql`alter table audit_log_leaves enable trigger user`);
    await db.execute(sql`alter table audit_log_nodes enable trigger user`);
  }
}

async function verifyNow() {
  const exported = await exportToFile(app, admin);
  return auditVerify(exported.path, log.dir, log.key.verifier);
}

const eventAt = async (leaf: number) => (await exportToFile(app, admin)).lines[leaf]!.event.id;

beforeAll(async () => {
  app = await createTestApp({ auditLog: log.settings });
  admin = await app.signUp({ admin: true });
  const api = await adminRestrictionApi(app);
  // A real run: cohorts made through the API, two checkpoints apart, and events after the last one.
  for (let i = 0; i < 3; i++) await newCohort(api);
  await checkpointNow(app, log.settings);
  for (let i = 0; i < 4; i++) await newCohort(api);
  await checkpointNow(app, log.settings);
  await writeEvent(app.db.db, "under no checkpoint yet");
  await sealAll(app.db.db);
}, 90_000);
afterAll(async () => {
  await app?.app.close();
  await app?.db.close();
});

describe("the offline verifier", () => {
  it("accepts the export and checkpoints of a real run, and says which leaves no checkpoint covers yet", async () => {
    const { code, output } = await verifyNow();
    // Three checkpoints: the empty log's, signed when the service started, then those of 3 and 7 leaves.
    expect({ code, output }).toEqual({
      code: 0,
      output: "OK 8 leaves; 3 checkpoints verified, the newest of 7 leaves; the last 1 leaves are under no checkpoint yet",
    });
  });

  it("names the leaf whose details a superuser changed", async () => {
    const id = await eventAt(4);
    await asSuperuser(app.db.db, () =>
      app.db.db.execute(sql`update audit_events set details = '{"approvalBypassed": false}' where id = ${id}`),
    );
    try {
      const { code, output } = await verifyNow();
      expect({ code, output }).toEqual({
        code: 1,
        output: `FAIL leaf 4: event ${id} is not the event the log signed (its hash differs from the published leaf hash)`,
      });
    } finally {
      await asSuperuser(app.db.db, () => app.db.db.execute(sql`update audit_events set details = null where id = ${id}`));
    }
    expect((await verifyNow()).code).toBe(0);
  });

  it("names the leaf of an event a superuser deleted", async () => {
    const id = await eventAt(2);
    const result = (await app.db.db.execute(sql`select * from audit_events where id = ${id}`)) as unknown as { rows?: unknown[] };
    const row = (result.rows ?? (result as unknown as unknown[]))[0];
    await asSuperuser(app.db.db, () => app.db.db.execute(sql`delete from audit_events where id = ${id}`));
    try {
      expect(await verifyNow()).toEqual({ code: 1, output: "FAIL leaf 2: missing from the export (the next line is leaf 3)" });
    } finally {
      await asSuperuser(app.db.db, () =>
        app.db.db.execute(
          sql`insert into audit_events select * from json_populate_record(null::audit_events, ${JSON.stringify(row)}::json)`,
        ),
      );
    }
    expect((await verifyNow()).code).toBe(0);
  });

  it("names the first of two events a superuser swapped in the log", async () => {
    const [first, second] = [await eventAt(1), await eventAt(5)];
    const swap = (a: string, b: string) =>
      asSuperuser(app.db.db, () =>
        // Through a third id: event_id is unique at every step.
        app.db.db.transaction(async (tx) => {
          const spare = "00000000-0000-4000-8000-000000000000";
          await tx.execute(sql`update audit_log_leaves set event_id = ${spare}::uuid where event_id = ${a}::uuid`);
          await tx.execute(sql`update audit_log_leaves set event_id = ${a}::uuid where event_id = ${b}::uuid`);
          await tx.execute(sql`update audit_log_leaves set event_id = ${b}::uuid where event_id = ${spare}::uuid`);
        }),
      );
    await swap(first, second);
    try {
      const { code, output } = await verifyNow();
      expect({ code, output }).toEqual({
        code: 1,
        output: `FAIL leaf 1: event ${second} is not the event the log signed (its hash differs from the published leaf hash)`,
      });
    } finally {
      await swap(first, second);
    }
    expect((await verifyNow()).code).toBe(0);
  });

  it("names the leaf when the whole table and its tree were rewritten consistently after a checkpoint, even once the service signs the rewrite", async () => {
    const id = await eventAt(0);
    await asSuperuser(app.db.db, async () => {
      await app.db.db.execute(sql`update audit_events set reason = 'rewritten' where id = ${id}`);
      // The tree rebuilt to match: every leaf queued again, the tree emptied, the head reset, then sealed.
      await app.db.db.execute(sql`insert into audit_unsealed (event_id, seq) select id, seq from audit_events`);
      await app.db.db.execute(sql`delete from audit_log_leaves`);
      await app.db.db.execute(sql`delete from audit_log_nodes`);
      await app.db.db.execute(sql`update audit_log_head set size = 0, root = sha256(''::bytea)`);
      await app.db.db.execute(sql`delete from audit_checkpoints`);
    });
    // The service, none the wiser, seals the rewritten history and signs a checkpoint of it.
    await checkpointNow(app, log.settings);
    const { code, output } = await verifyNow();
    expect({ code, output }).toEqual({
      code: 1,
      output:
        "FAIL leaf 0: checkpoint 000000000008.checkpoint signs another event than checkpoint 000000000003.checkpoint did: the history was rewritten after that was published",
    });
  });
});
