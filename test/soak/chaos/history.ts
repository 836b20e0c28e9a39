// The history: every request and its answer, every stream event, fault and push arrival, with times, one JSON
// record a line. Written as it happens (so the soak's own heap stays flat) and read back by the checker.
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { createInterface } from "node:readline";

/** Milliseconds since the epoch, with the monotonic clock's precision. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * How a request ended. `ok`: a 2xx. `fail`: an error answer, which promises nothing was written. `unknown`:
 * 503 with `outcome: "unknown"`, or no answer at all (cut off, timed out): it may have been applied.
 * `refused`: the connection was refused, so the request never reached a server.
 */
export type Outcome = "ok" | "fail" | "unknown" | "refused";

export type Req = {
  t: "req";
  id: number;
  actor: string;
  op: string;
  inst: number;
  method: string;
  path: string;
  /** Who sent it: `session:<label>` or `key:<label>`, or "" without a credential. */
  cred: string;
  /** The Idempotency-Key, if one was sent. */
  key?: string;
  start: number;
  end: number;
  status: number;
  outcome: Outcome;
  replayed?: boolean;
  /** The answer's body where the checker needs it (trimmed by the workload). */
  body?: unknown;
  /** What the workload meant: the pro, the value written, the notification ids, the eventIds, … */
  meta?: Record<string, unknown>;
  /** When it went unanswered: why (abort, reset). */
  error?: string;
};

export type StreamRec = {
  t: "stream";
  sid: number;
  kind: "unread" | "ofrep";
  /** The user id (unread) or the pro id (ofrep). */
  subject: string;
  inst: number;
  ev: "open" | "event" | "close";
  at: number;
  /** unread: the count; ofrep: the etag or null. */
  value?: number | string | null;
  reason?: string;
};

export type FaultRec = { t: "fault"; id: number; kind: string; target: string; start: number; end: number; note: string };

/** `title`: the decrypted payload's title, `Soak <eventId>` (chaos/workload-producer.ts). */
export type PushRec = { t: "push"; path: string; title: string | null; arrivedAt: number; closedAt: number; status: number };

/**
 * A push whose connection the push service cut (push-drop) before the sender had shown, by sending another
 * push on it, that it read the answer: the sender may have seen only a network error, so it may send again.
 */
export type PushCutRec = { t: "push-cut"; path: string; title: string | null; arrivedAt: number; cutAt: number };

/** Instances' lives: a SIGKILL is a crash, which allows a push to be sent twice. */
export type LifeRec = { t: "life"; inst: number; ev: "killed" | "terminated" | "started"; at: number };

export type FinalRec = { t: "final"; at: number; db: FinalDb };

export type FinalDb = {
  pros: { id: string; active: boolean }[];
  notifications: { id: string; userId: string; read: boolean; deleted: boolean }[];
  events: { producer: string; eventId: string; userId: string; notificationId: string | null }[];
  deliveries: { id: string; eventId: string; status: string; attempts: number; notificationId: string | null; path: string }[];
  changeRequests: {
    id: string;
    cohortId: string | null;
    proId: string | null;
    action: string;
    status: string;
    requestedById: string;
    decidedById: string | null;
    decidedAt: string | null;
    appliedAt: string | null;
  }[];
  /** Audit events of gated changes actually applied (activations of cohorts and pros). */
  activations: { action: string; targetId: string; actorId: string | null; changeRequestId: string | null; bypassed: boolean }[];
  idempotency: { userId: string; key: string; status: number | null }[];
  users: { id: string; email: string }[];
};

export type Rec = Req | StreamRec | FaultRec | PushRec | PushCutRec | LifeRec | FinalRec | { t: "meta"; [k: string]: unknown };

export type History = {
  reqs: Req[];
  streams: StreamRec[];
  faults: FaultRec[];
  pushes: PushRec[];
  cuts: PushCutRec[];
  lives: LifeRec[];
  final: FinalRec | null;
  meta: Record<string, unknown>;
};

let out: WriteStream | null = null;
let nextId = 1;

export function openHistory(file: string) {
  out = createWriteStream(file, { flags: "w" });
}

export function write(rec: Rec) {
  out?.write(`${JSON.stringify(rec)}\n`);
}

export const newId = () => nextId++;

export async function closeHistory() {
  const stream = out;
  out = null;
  if (stream) await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Reads a history file back, sorted into its kinds. */
export async function readHistory(file: string): Promise<History> {
  const history: History = { reqs: [], streams: [], faults: [], pushes: [], cuts: [], lives: [], final: null, meta: {} };
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line) as Rec;
    if (rec.t === "req") history.reqs.push(rec);
    else if (rec.t === "stream") history.streams.push(rec);
    else if (rec.t === "fault") history.faults.push(rec);
    else if (rec.t === "push") history.pushes.push(rec);
    else if (rec.t === "push-cut") history.cuts.push(rec);
    else if (rec.t === "life") history.lives.push(rec);
    else if (rec.t === "final") history.final = rec;
    else if (rec.t === "meta") Object.assign(history.meta, rec);
  }
  return history;
}
