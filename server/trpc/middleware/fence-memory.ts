import { procedureMayChangeMemory, wroteMemory } from "../../memory/fence.js";
import { t } from "../init.js";

/**
 * After a mutation that may change what memory holds (a flag, a user, a key), memory waits for proof it has
 * heard the change before it serves again (server/memory/fence.ts): callers read their own writes. Also
 * after a failure, which may come after the commit (a lost COMMIT answer).
 */
export const fenceMemory = t.middleware(async ({ type, path, next }) => {
  try {
    return await next();
  } finally {
    if (type === "mutation" && procedureMayChangeMemory(path)) wroteMemory();
  }
});
