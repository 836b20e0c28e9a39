import { t } from "../init.js";
import { fenceAfterCall } from "./fence-memory.js";
import { normalizedResult } from "./normalize-errors.js";

/**
 * What every procedure call goes through: memory fenced after a mutation, then the outcome's error
 * normalized. One middleware for both, since tRPC copies a call's options twice for each middleware it
 * passes (its `_objectSpread2`, the largest share of a from-memory read's CPU in our code; issue AE).
 */
export const everyCall = t.middleware(async ({ ctx, type, path, next }) => {
  let result: Awaited<ReturnType<typeof next>>;
  try {
    result = await next();
  } finally {
    fenceAfterCall(ctx, type, path);
  }
  return normalizedResult(result);
});
