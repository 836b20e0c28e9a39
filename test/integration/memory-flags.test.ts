// The pros' statuses in memory (issue W, server/memory/flags.ts): OFREP and the admin pro lookup answer from
// this instance's memory once it can vouch for it, a caller reads its own write at once, and a write made
// outside the service (raw SQL) is heard like the service's own. On PGlite and PostgreSQL.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { adminRestrictionApi, registeredPro } from "../helpers/fixtures.js";
import { answeredFrom } from "../helpers/memory.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

describe("the pros' statuses in memory", () => {
  const t = useTestApp();
  const o = ofrep(t);

  const evaluation = async (headers: Record<string, string>, proId: string) => {
    const answer = await o.evaluate({ headers, body: forPro(proId) });
    expect(answer.statusCode).toBe(200);
    return answer.json() as { value: boolean; reason: string };
  };
  const fromMemory = (headers: Record<string, string>, proId: string) =>
    waitFor(
      () => answeredFrom("pro_status", () => evaluation(headers, proId)),
      (answer) => answer.source === "memory",
      { withinMs: 5000, what: "an evaluation answered from memory" },
    );

  it("answers evaluations from memory, and every write through the service is read back at once", async () => {
    const key = await insertApiKey(t().db.db);
    const proId = await registeredPro(t().db.db);
    const api = await adminRestrictionApi(t());
    expect((await fromMemory(key.headers, proId)).value).toMatchObject({ value: false, reason: "DEFAULT" });

    for (const on of [true, false, true, false, true]) {
      await (on ? api.activatePro({ proId }) : api.rollbackPro({ proId }));
      // At once, whichever way it is answered: never the value from before the write.
      expect(await evaluation(key.headers, proId)).toMatchObject({ value: on, reason: "TARGETING_MATCH" });
      expect(await api.getPro({ proId })).toMatchObject({ proId, restrictionActive: on });
    }
    expect((await fromMemory(key.headers, proId)).value).toMatchObject({ value: true });
  });

  it("hears writes made outside the service: a status inserted, changed and deleted with raw SQL", async () => {
    const key = await insertApiKey(t().db.db);
    const proId = await registeredPro(t().db.db);
    await fromMemory(key.headers, proId);
    const settles = async (expected: { value: boolean; reason: string }) => {
      const { value } = await waitFor(
        () => answeredFrom("pro_status", () => evaluation(key.headers, proId)),
        (answer) => answer.source === "memory" && answer.value.value === expected.value && answer.value.reason === expected.reason,
        { withinMs: 5000, what: `memory answering ${JSON.stringify(expected)}` },
      );
      return value;
    };

    await t().db.db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values (${proId}, true)`);
    expect(await settles({ value: true, reason: "TARGETING_MATCH" })).toMatchObject({ value: true });
    await t().db.db.execute(sql`update pro_restriction_status set restriction_active = false where pro_id = ${proId}`);
    expect(await settles({ value: false, reason: "TARGETING_MATCH" })).toMatchObject({ value: false });
    await t().db.db.execute(sql`delete from pro_restriction_status where pro_id = ${proId}`);
    expect(await settles({ value: false, reason: "DEFAULT" })).toMatchObject({ reason: "DEFAULT" });
  });
});
