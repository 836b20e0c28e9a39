import type { Context } from "../../context.js";
import { t } from "../init.js";
import { narrowedToCaller } from "./authed.js";
import { fenceAfterCall } from "./fence-memory.js";
import { normalizedResult, procedureError } from "./normalize-errors.js";

/**
 * What every procedure call goes through: memory fenced after a mutation, then the outcome's error
 * normalized. One middleware for both, since tRPC copies a call's options twice for each middleware it
 * passes (its `_objectSpread2`, the largest share of a from-memory read's CPU in our code; issue AE).
 */
async function fencedAndNormalized<Result extends { ok: true } | { ok: false; error: unknown }>(
  ctx: Context,
  type: string,
  path: string,
  called: Promise<Result>,
): Promise<Result> {
  let result: Result;
  try {
    result = await called;
  } finally {
    fenceAfterCall(ctx, type, path);
  }
  return normalizedResult(result);
}

export const everyCall = t.middleware(({ ctx, type, path, next }) => fencedAndNormalized(ctx, type, path, next()));

/**
 * everyCall for the procedures of a caller who passes `check` (authed.ts, admin.ts): the check in the same
 * middleware, so a signed-in call passes one middleware of ours instead of two (issue AE). A refused caller
 * gets the normalized error at once; no procedure ran, so there is nothing to fence.
 */
export function everyCallOf(check: (ctx: Context) => void) {
  return t.middleware(({ ctx, type, path, next }) => {
    try {
      check(ctx);
    } catch (err) {
      throw procedureError(err);
    }
    return fencedAndNormalized(ctx, type, path, next({ ctx: narrowedToCaller }));
  });
}
