// Which requests fence memory (server/memory/index.ts): a write that may change a flag, a user, a session or
// a key; never a read, an OFREP evaluation (a POST that reads) or a user's own notification write.
import { describe, expect, it } from "vitest";
import { mayChangeMemory } from "../../server/memory/index.js";

describe("mayChangeMemory", () => {
  it.each([
    ["POST", "/api/admin/restriction/pro-1/activate"],
    ["POST", "/api/auth/sign-out"],
    ["POST", "/api/admin/users/u1/role"],
    ["POST", "/trpc/users.ban"],
    ["DELETE", "/api/admin/api-keys/k1"],
    ["POST", "/trpc/restriction.activatePro"],
    ["POST", "/trpc/notifications.markRead,restriction.activatePro?batch=1"],
  ])("%s %s may", (method, url) => expect(mayChangeMemory({ method, url })).toBe(true));

  it.each([
    ["GET", "/api/admin/restriction/pro-1"],
    ["HEAD", "/api/notifications"],
    ["POST", "/ofrep/v1/evaluate/flags/restrict-direct-contact"],
    ["POST", "/ofrep/v1/evaluate/flags"],
    ["PATCH", "/api/notifications/read-all"],
    ["POST", "/api/notifications/events"],
    ["POST", "/trpc/notifications.markRead"],
    ["POST", "/trpc/notifications.markRead,notifications.delete?batch=1"],
  ])("%s %s never does", (method, url) => expect(mayChangeMemory({ method, url })).toBe(false));
});
