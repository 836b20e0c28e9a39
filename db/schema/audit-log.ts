// The audit log's Merkle tree (issue AB, docs/guarantees.md "Audit log"). An audit event is written in its
// change's transaction; a trigger (migration 0023) also queues it in audit_unsealed there. One sealer at a
// time (server/audit/sealer.ts) takes queued events that have committed, gives them the next leaf indexes,
// stores the tree's new nodes and deletes them from the queue, in one transaction: the order of the leaves
// is the order the events became visible, and an event committed late is found by a later seal.
import { sql } from "drizzle-orm";
import { bigint, check, customType, pgTable, primaryKey, smallint, text, timestamp, uuid } from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => Buffer.from(value),
});
const tz = { withTimezone: true } as const;

/** Events committed but not yet in the tree. */
export const auditUnsealed = pgTable("audit_unsealed", {
  eventId: uuid("event_id").primaryKey(),
  /** The event's audit_events.seq: the order within one seal. */
  seq: bigint("seq", { mode: "number" }).notNull(),
});

/** Leaf `leafIndex` of the tree is the event `eventId`. */
export const auditLogLeaves = pgTable("audit_log_leaves", {
  leafIndex: bigint("leaf_index", { mode: "number" }).primaryKey(),
  eventId: uuid("event_id").notNull().unique(),
});

/** Every complete subtree: level 0 holds the leaf hashes; (level, idx) covers leaves [idx·2^level, (idx+1)·2^level). */
export const auditLogNodes = pgTable(
  "audit_log_nodes",
  {
    level: smallint("level").notNull(),
    idx: bigint("idx", { mode: "number" }).notNull(),
    hash: bytea("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.level, t.idx] })],
);

/** The one row of the tree's size and root; a seal takes it FOR UPDATE, which makes the sealer one. */
export const auditLogHead = pgTable(
  "audit_log_head",
  {
    id: smallint("id").primaryKey(),
    size: bigint("size", { mode: "number" }).notNull(),
    root: bytea("root").notNull(),
    sealedAt: timestamp("sealed_at", tz),
  },
  (t) => [check("audit_log_head_one_row", sql`${t.id} = 1`)],
);

/** Signed checkpoints, newest by tree size; `publishedAt` once written to every configured destination. */
export const auditCheckpoints = pgTable("audit_checkpoints", {
  treeSize: bigint("tree_size", { mode: "number" }).primaryKey(),
  note: text("note").notNull(),
  createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  publishedAt: timestamp("published_at", tz),
});
