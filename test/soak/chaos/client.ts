// One request to one instance, recorded in the history with its times and outcome (history.ts). Never
// throws: a request that got no answer is recorded as such, and the caller decides whether to retry.
import { ANSWER_MARGIN_SECONDS, DB_DEADLINE_SECONDS } from "../settings.js";
import { newId, now, type Outcome, type Req, write } from "./history.js";

let urls: string[] = [];
export function setInstances(list: string[]) {
  urls = list;
}
export const instanceCount = () => urls.length;
export const instanceUrl = (i: number) => urls[i]!;

let sent = 0;
/** How many requests were sent so far. */
export const requestCount = () => sent;

/** A request still unanswered this long is cut off and recorded as unanswered: past the checker's bound. */
export const UNANSWERED_MS = (DB_DEADLINE_SECONDS + ANSWER_MARGIN_SECONDS + 10) * 1000;

export type Call = {
  actor: string;
  op: string;
  inst: number;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  /** A bearer session token, with its label for the history. */
  session?: { token: string; label: string };
  apiKey?: { secret: string; label: string };
  idempotencyKey?: string;
  headers?: Record<string, string>;
  meta?: Record<string, unknown>;
  /** Keep the answer's body in the history (default: only for errors). */
  keepBody?: boolean | ((body: unknown) => unknown);
  /** More meta from the answer (e.g. the value a read showed), added before the record is written. */
  metaFrom?: (status: number, body: unknown, headers: Headers | null) => Record<string, unknown> | undefined;
};

export type Answer = { status: number; body: unknown; outcome: Outcome; headers: Headers | null; rec: Req };

export function outcomeOf(status: number, body: unknown): Outcome {
  if (status >= 200 && status < 300) return "ok";
  if (status === 304) return "ok";
  if (status === 503 && (body as { error?: { details?: { outcome?: string } } })?.error?.details?.outcome === "unknown") return "unknown";
  return "fail";
}

export async function call(c: Call): Promise<Answer> {
  const base = urls[c.inst]!;
  sent++;
  const start = now();
  let status = 0;
  let body: unknown;
  let headers: Headers | null = null;
  let error: string | undefined;
  let outcome: Outcome;
  try {
    const res = await fetch(`${base}${c.path}`, {
      method: c.method,
      headers: {
        ...(c.body === undefined ? {} : { "content-type": "application/json" }),
        ...(c.session ? { authorization: `Bearer ${c.session.token}` } : {}),
        ...(c.apiKey ? { "x-api-key": c.apiKey.secret } : {}),
        ...(c.idempotencyKey ? { "idempotency-key": c.idempotencyKey } : {}),
        origin: base,
        ...c.headers,
      },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
      signal: AbortSignal.timeout(UNANSWERED_MS),
    });
    status = res.status;
    headers = res.headers;
    const text = await res.text();
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text.slice(0, 300);
    }
    outcome = outcomeOf(status, body);
  } catch (err) {
    const cause = (err as Error & { cause?: { code?: string } }).cause;
    error = String(cause?.code ?? (err as Error).name ?? err);
    // A refused connection never reached a server; anything else may have.
    outcome = cause?.code === "ECONNREFUSED" ? "refused" : "unknown";
  }
  const meta = { ...c.meta, ...(c.metaFrom ? c.metaFrom(status, body, headers) : undefined) };
  const keep = outcome !== "ok" ? body : typeof c.keepBody === "function" ? c.keepBody(body) : c.keepBody ? body : undefined;
  const rec: Req = {
    t: "req",
    id: newId(),
    actor: c.actor,
    op: c.op,
    inst: c.inst,
    method: c.method,
    path: c.path,
    cred: c.session ? `session:${c.session.label}` : c.apiKey ? `key:${c.apiKey.label}` : "",
    ...(c.idempotencyKey ? { key: c.idempotencyKey } : {}),
    start,
    end: now(),
    status,
    outcome,
    ...(headers?.get("idempotent-replayed") === "true" ? { replayed: true } : {}),
    ...(keep === undefined ? {} : { body: keep }),
    ...(Object.keys(meta).length ? { meta } : {}),
    ...(error ? { error } : {}),
  };
  write(rec);
  return { status, body, outcome, headers, rec };
}

/** The `data` of a success envelope. */
export const dataOf = <T>(a: Answer) => (a.body as { data?: T } | undefined)?.data;

/** Whether an outcome calls for sending the same request again (with the same Idempotency-Key or eventIds). */
export const shouldRetry = (a: Answer) => a.outcome === "unknown" || a.outcome === "refused" || a.status === 503 || a.status === 409;
