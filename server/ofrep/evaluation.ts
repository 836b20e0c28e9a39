// Pure rules of the restriction as an OpenFeature flag (docs/platform.md#reading-the-restriction-from-other-services,
// OFREP: open-feature/protocol service/openapi.yaml). No I/O.
import { hash } from "node:crypto";
import type { StoredFlag } from "../../db/schema/restriction-values.js";
import { MAX_PRO_ID_LENGTH } from "../restriction/limits.js";

/** The one flag this service serves. */
export const FLAG_KEY = "restrict-direct-contact";

/** Shared between answers (evaluate), so read-only. */
export type Evaluation = Readonly<{
  key: typeof FLAG_KEY;
  value: boolean;
  reason: "TARGETING_MATCH" | "DEFAULT";
  variant: "on" | "off";
  /** `cohortId` when a cohort set the status; OFREP metadata holds strings, numbers and booleans only. */
  metadata: Readonly<{ cohortId?: string }>;
}>;

/** The flag of a pro without a stored status. */
const OFF_BY_DEFAULT: Evaluation = Object.freeze({
  key: FLAG_KEY,
  value: false,
  reason: "DEFAULT",
  variant: "off",
  metadata: Object.freeze({}),
});

/** Evaluations kept by cohort ("" for none), at most this many cohorts (then forgotten all at once). */
export const REMEMBERED_EVALUATIONS = 1024;
// A flag takes few distinct values: each is made once and shared (frozen), so its ETag is hashed once too
// (the hash was ~3 % of a 304's CPU; issue AE).
const evaluations = new Map<string, { on: Evaluation; off: Evaluation }>();
const etags = new WeakMap<Evaluation, string>();

function matched(value: boolean, cohortId: string | null): Evaluation {
  return Object.freeze({
    key: FLAG_KEY,
    value,
    reason: "TARGETING_MATCH",
    variant: value ? "on" : "off",
    metadata: Object.freeze(cohortId ? { cohortId } : {}),
  });
}

/** The flag for one pro: its stored status, or off by default when it has none. Shared and frozen. */
export function evaluate(status: StoredFlag | undefined): Evaluation {
  if (!status) return OFF_BY_DEFAULT;
  const cohortId = status.cohortId ?? "";
  let pair = evaluations.get(cohortId);
  if (pair === undefined) {
    if (evaluations.size >= REMEMBERED_EVALUATIONS) evaluations.clear();
    pair = { on: matched(true, status.cohortId), off: matched(false, status.cohortId) };
    evaluations.set(cohortId, pair);
  }
  return status.restrictionActive ? pair.on : pair.off;
}

const bodies = new WeakMap<Evaluation, string>();
/**
 * A single evaluation's answer as JSON text: made once per shared evaluation, since serializing it on each
 * request was ~3 % of an evaluation's CPU (issue AE).
 */
export function evaluationJson(evaluation: Evaluation): string {
  let json = bodies.get(evaluation);
  if (json === undefined) {
    json = JSON.stringify(evaluation);
    bodies.set(evaluation, json);
  }
  return json;
}

/** The ETag of a bulk answer: its flags' content, so an unchanged flag answers 304 whatever else changed. */
export function flagsEtag(flags: readonly Evaluation[]): string {
  const one = flags.length === 1 ? flags[0]! : undefined;
  const known = one && etags.get(one);
  if (known) return known;
  const etag = `"${hash("sha256", JSON.stringify(flags), "base64url").slice(0, 22)}"`;
  if (one) etags.set(one, etag);
  return etag;
}

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included, as RFC 9110 says). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  // What a client sends back is mostly the one ETag it was given.
  if (ifNoneMatch === etag) return true;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

export type ContextProblem = { errorCode: "TARGETING_KEY_MISSING" | "INVALID_CONTEXT" | "PARSE_ERROR"; errorDetails: string };

/**
 * The pro id an evaluation request names (`{context: {targetingKey}}`), or what is wrong with the request.
 * A pro id is what the restriction's procedures accept: 1 to 200 characters, storable text.
 */
export function targetingKeyOf(body: unknown): string | ContextProblem {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { errorCode: "PARSE_ERROR", errorDetails: "The body must be a JSON object: {context: {targetingKey}}" };
  }
  const context = (body as { context?: unknown }).context;
  if (typeof context !== "object" || context === null || Array.isArray(context)) {
    return { errorCode: "INVALID_CONTEXT", errorDetails: "context must be an object with the pro id as targetingKey" };
  }
  const key = (context as { targetingKey?: unknown }).targetingKey;
  if (typeof key !== "string" || key.trim() === "") {
    return { errorCode: "TARGETING_KEY_MISSING", errorDetails: "context.targetingKey must be the pro id" };
  }
  // A lone surrogate or NUL names no pro the service could have stored (server/http/text.ts).
  if (key.length > MAX_PRO_ID_LENGTH || key.includes("\u0000") || /\p{Surrogate}/u.test(key)) {
    return {
      errorCode: "INVALID_CONTEXT",
      errorDetails: `context.targetingKey must be a pro id of at most ${MAX_PRO_ID_LENGTH} characters`,
    };
  }
  return key;
}
