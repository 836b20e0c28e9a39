// send(): one request to the soak server, checked against the one status (and body) it must answer, and recorded.
import { record } from "./stats.js";

export type Answer = { status: number; body: unknown };
type Call = {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  token?: string;
  /** The one status this call must answer with. */
  expect: number;
  /** Optional further check of the body; returns an error text or null. */
  check?: (body: unknown) => string | null;
};

let base = "";

/** The server every call goes to, e.g. http://127.0.0.1:40109. */
export function setBase(url: string) {
  base = url;
}

export async function send(op: string, call: Call): Promise<Answer | null> {
  const started = performance.now();
  let answer: Answer | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        origin: base,
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, and any check below sees it.
    }
    answer = { status: res.status, body };
    if (res.status !== call.expect) error = `${call.method} ${call.path}: expected ${call.expect}, got ${res.status} ${text.slice(0, 300)}`;
    else if (call.check) error = call.check(body);
  } catch (err) {
    error = `${call.method} ${call.path}: no answer: ${String((err as Error).cause ?? err)}`;
  }
  record(op, performance.now() - started, error);
  return error ? null : answer;
}

/** The `data` of a success envelope. */
export const data = <T>(answer: Answer | null) => (answer?.body as { data: T } | undefined)?.data;
export const envelope = (body: unknown) =>
  (body as { success?: unknown })?.success === true ? null : `not a success envelope: ${JSON.stringify(body).slice(0, 200)}`;
export const errorCode = (code: string) => (body: unknown) =>
  (body as { error?: { code?: string } })?.error?.code === code ? null : `expected error ${code}: ${JSON.stringify(body).slice(0, 200)}`;
