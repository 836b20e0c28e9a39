// The audit log's filters in the address (console/src/views/auditFilters.ts): named as the API names them,
// an actor by email or by id, and every id back exactly as it went out.
import { describe, expect, test } from "vitest";
import { type AuditFilters, filtersFromSearch, filtersToSearch, toListInput } from "../../console/src/views/auditFilters.js";

const none: AuditFilters = { action: "", targetType: "", targetId: "", proId: "", actor: "", since: "", until: "" };

describe("audit filters in the address", () => {
  test("the address uses the API's parameter names, so a link such as ?proId= opens the filtered log", () => {
    expect(filtersToSearch({ ...none, proId: "pro-1", action: "cohort.activate" })).toBe("action=cohort.activate&proId=pro-1");
    expect(filtersFromSearch("?proId=pro-1")).toEqual({ ...none, proId: "pro-1" });
  });

  test("an actor with an @ is an email address, anything else a user id", () => {
    expect(filtersToSearch({ ...none, actor: "Olivia@Example.com" })).toBe("actorEmail=Olivia%40Example.com");
    expect(filtersToSearch({ ...none, actor: "8fJ3kQ2mVx" })).toBe("actorId=8fJ3kQ2mVx");
    expect(toListInput({ ...none, actor: "olivia@example.com" })).toMatchObject({ actorEmail: "olivia@example.com", actorId: undefined });
    expect(toListInput({ ...none, actor: " 8fJ3kQ2mVx " })).toMatchObject({ actorId: "8fJ3kQ2mVx", actorEmail: undefined });
    expect(filtersFromSearch("actorEmail=olivia%40example.com").actor).toBe("olivia@example.com");
    expect(filtersFromSearch("actorId=8fJ3kQ2mVx").actor).toBe("8fJ3kQ2mVx");
  });

  test.each(["pro=1/x%y", "%41b", "a&b+c d", "a?b#c", "%3D", "50%", "é ü/ñ", "😀"])("the id %j comes back exactly", (id) => {
    const search = `?${filtersToSearch({ ...none, proId: id, targetId: id })}`;
    // As the browser holds it: the address is parsed, never decoded on the way.
    const held = new URL(`http://console.test/console/audit${search}`).search;
    expect(filtersFromSearch(held)).toMatchObject({ proId: id, targetId: id });
    expect(toListInput(filtersFromSearch(held))).toMatchObject({ proId: id, targetId: id });
  });

  test("no filter: every event, 50 at a time", () => {
    expect(filtersToSearch(none)).toBe("");
    expect(toListInput(filtersFromSearch(""))).toEqual({
      action: undefined,
      targetType: undefined,
      targetId: undefined,
      proId: undefined,
      actorId: undefined,
      actorEmail: undefined,
      since: undefined,
      until: undefined,
      limit: 50,
    });
  });
});
