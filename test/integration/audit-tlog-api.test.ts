// The audit log's API (docs/api.md#audit-log): the export for admins and audit:read keys, resumable from a
// cursor across a restart; the checkpoint, proofs that verify against it, the verifier key; checkpoints
// POSTed to AUDIT_CHECKPOINT_URL; and the checkpoint signed on shutdown.
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventLeafHash } from "../../server/audit/log/leaf.js";
import { verifyConsistency, verifyInclusion } from "../../server/audit/log/merkle.js";
import { openCheckpoint, parseVerifierKey } from "../../server/audit/log/note.js";
import { readHead } from "../../server/audit/tree.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { createTestApp, type TestApp, type TestUser } from "../helpers/app.js";
import { writeEvent } from "../helpers/audit-log.js";
import { auditLogSettings, checkpointNow, checkpointReceiver, exportToFile } from "../helpers/audit-log-world.js";

let app: TestApp;
let admin: TestUser;
let user: TestUser;
let receiver: Awaited<ReturnType<typeof checkpointReceiver>>;
let log: ReturnType<typeof auditLogSettings>;

const get = (url: string, headers: Record<string, string> = admin.headers) => app.app.inject({ method: "GET", url, headers });
const data = <T>(res: { json(): unknown }) => (res.json() as { data: T }).data;

beforeAll(async () => {
  receiver = await checkpointReceiver();
  log = auditLogSettings(receiver.url);
  app = await createTestApp({ auditLog: log.settings });
  admin = await app.signUp({ admin: true });
  user = await app.signUp();
  for (let i = 0; i < 5; i++) await writeEvent(app.db.db, `event ${i}`);
  await checkpointNow(app, log.settings);
}, 90_000);
afterAll(async () => {
  await app?.app.close();
  await app?.db.close();
  await receiver?.close();
});

describe("GET /api/admin/audit/export", () => {
  it("streams one {leafIndex, event} a line, from leaf after + 1, to admins and to keys with audit:read only", async () => {
    const all = await exportToFile(app, admin);
    expect(all.lines.map((l) => l.leafIndex)).toEqual([0, 1, 2, 3, 4]);
    const res = await get("/api/admin/audit/export?after=2");
    expect(res.headers["content-type"]).toMatch(/^application\/x-ndjson/);
    expect(
      res.body
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).leafIndex),
    ).toEqual([3, 4]);

    const reader = await insertApiKey(app.db.db, { scopes: ["audit:read"] });
    expect((await get("/api/admin/audit/export?after=3", reader.headers)).body.split("\n").filter(Boolean)).toHaveLength(1);
    const other = await insertApiKey(app.db.db, { scopes: ["flags:read"] });
    expect((await get("/api/admin/audit/export", other.headers)).statusCode).toBe(403);
    expect((await get("/api/admin/audit/export", user.headers)).statusCode).toBe(403);
    expect((await get("/api/admin/audit/export", {})).statusCode).toBe(401);
  });

  it("refuses an after that is no leaf index, and parameters it does not take, naming them", async () => {
    for (const bad of ["-1", "1.5", "x", "", "9007199254740993"]) {
      const res = await get(`/api/admin/audit/export?after=${encodeURIComponent(bad)}`);
      expect({ bad, status: res.statusCode, field: res.json().error.details?.[0]?.field }).toEqual({ bad, status: 400, field: "after" });
    }
    expect((await get("/api/admin/audit/export?limit=5")).json().error.details[0].field).toBe("limit");
  });

  it("resumes from the last leafIndex read after a restart of the service, without loss or duplication", async () => {
    const firstPart = (await exportToFile(app, admin)).lines.slice(0, 2);
    // The service restarts on the same database; events keep coming meanwhile.
    await app.app.close();
    app = await createTestApp({ db: app.db, auditLog: log.settings });
    await writeEvent(app.db.db, "after the restart");
    await checkpointNow(app, log.settings);
    const rest = (await exportToFile(app, admin, firstPart.at(-1)!.leafIndex)).lines;
    const whole = (await exportToFile(app, admin)).lines;
    expect([...firstPart, ...rest]).toEqual(whole);
    expect(whole.map((l) => l.leafIndex)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe("checkpoint, proofs and the verifier key", () => {
  it("serve a signed checkpoint, its key at the well-known path, and proofs that verify against it", async () => {
    const keyRes = await get("/.well-known/audit-log-key", {});
    expect(keyRes.body).toBe(`${log.key.verifier}\n`);
    const checkpoint = openCheckpoint(
      data<{ checkpoint: string }>(await get("/api/admin/audit/checkpoint")).checkpoint,
      parseVerifierKey(keyRes.body),
    );
    expect(checkpoint.size).toBe((await readHead(app.db.db)).size);

    const lines = (await exportToFile(app, admin)).lines;
    for (const line of lines) {
      const proof = data<{ hashes: string[] }>(
        await get(`/api/admin/audit/proof/inclusion?leafIndex=${line.leafIndex}&treeSize=${checkpoint.size}`),
      );
      const hashes = proof.hashes.map((h) => Buffer.from(h, "base64"));
      expect(verifyInclusion(line.leafIndex, checkpoint.size, eventLeafHash(line.event), hashes, checkpoint.root)).toBe(true);
    }
    // The first checkpoint (5 leaves) and the one after the restart (6): the later extends the earlier.
    const earlier = receiver.received.map((note) => openCheckpoint(note, parseVerifierKey(log.key.verifier))).find((c) => c.size === 5)!;
    const consistency = data<{ hashes: string[] }>(await get(`/api/admin/audit/proof/consistency?from=5&to=${checkpoint.size}`));
    expect(
      verifyConsistency(
        5,
        checkpoint.size,
        earlier.root,
        checkpoint.root,
        consistency.hashes.map((h) => Buffer.from(h, "base64")),
      ),
    ).toBe(true);
  });

  it("answer 404 for a tree beyond the log, and 400 for a leaf outside its tree", async () => {
    const size = (await readHead(app.db.db)).size;
    expect((await get(`/api/admin/audit/proof/inclusion?leafIndex=0&treeSize=${size + 1}`)).statusCode).toBe(404);
    expect((await get(`/api/admin/audit/proof/consistency?from=1&to=${size + 1}`)).statusCode).toBe(404);
    expect((await get(`/api/admin/audit/proof/inclusion?leafIndex=${size}&treeSize=${size}`)).json().error.details[0].field).toBe(
      "leafIndex",
    );
  });

  it("POST every checkpoint to AUDIT_CHECKPOINT_URL and write it to AUDIT_CHECKPOINT_DIR", async () => {
    const sizes = receiver.received.map((note) => openCheckpoint(note, parseVerifierKey(log.key.verifier)).size);
    expect(sizes).toEqual([0, 5, 6]);
    expect(readdirSync(log.dir).filter((f) => f.endsWith(".checkpoint"))).toEqual([
      "000000000000.checkpoint",
      "000000000005.checkpoint",
      "000000000006.checkpoint",
    ]);
  });

  it("sign a checkpoint of every event on shutdown, whatever the interval", async () => {
    await writeEvent(app.db.db, "just before shutdown");
    await app.app.close();
    const newest = openCheckpoint(receiver.received.at(-1)!, parseVerifierKey(log.key.verifier));
    expect(newest.size).toBe(7);
    app = await createTestApp({ db: app.db });
  });
});

describe("without AUDIT_SIGNING_KEY", () => {
  it("the well-known key and the checkpoint say that nothing is signed", async () => {
    const unsigned = await createTestApp();
    try {
      const signedIn = await unsigned.signUp({ admin: true });
      const key = await unsigned.app.inject({ method: "GET", url: "/.well-known/audit-log-key" });
      expect({ status: key.statusCode, message: key.json().error.message }).toEqual({
        status: 404,
        message: "This service signs no audit checkpoints: AUDIT_SIGNING_KEY is not set",
      });
      const checkpoint = await unsigned.app.inject({ method: "GET", url: "/api/admin/audit/checkpoint", headers: signedIn.headers });
      expect(checkpoint.statusCode).toBe(404);
      expect(checkpoint.json().error.message).toMatch(/^No signed checkpoint yet: the log is signed only when AUDIT_SIGNING_KEY is set/);
    } finally {
      await unsigned.app.close();
      await unsigned.db.close();
    }
  });
});
