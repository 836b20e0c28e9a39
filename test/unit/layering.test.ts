// The house's floors (docs/architecture.md), checked over the real imports by tools/check-layers.mjs, which
// npm run lint also runs: a new circle or an import up a floor fails here, naming the import.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, without types
import { check, floorOf, layeringProblems } from "../../tools/check-layers.mjs";

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

describe("the layering check", () => {
  it("finds no circle, no import up a floor and no file over 400 lines in today's tree", () => {
    expect(check().problems).toEqual([]);
  });

  it("puts the domain below the doors and the procedures", () => {
    expect(floorOf("db/client.ts")).toBe(0);
    expect(floorOf("server/memory/flags.ts")).toBe(2);
    expect(floorOf("server/restriction/cohorts.ts")).toBe(3);
    expect(floorOf("server/routers/restriction/router.ts")).toBe(4);
    expect(floorOf("server/trpc/door.ts")).toBe(5);
    expect(floorOf("server/rest/routes.ts")).toBe(5);
    expect(floorOf("server/app.ts")).toBe(6);
  });

  it("refuses memory reaching up into a router for a type", () => {
    const { problems } = layeringProblems(
      graph({ "server/memory/flags.ts": ["server/routers/restriction/router.ts"], "server/routers/restriction/router.ts": [] }),
    );
    expect(problems).toEqual(["import up a floor (2 -> 4): server/memory/flags.ts -> server/routers/restriction/router.ts"]);
  });

  it("refuses a circle even within one floor", () => {
    const { problems } = layeringProblems(
      graph({ "server/auth/session.ts": ["server/memory/identity.ts"], "server/memory/identity.ts": ["server/auth/session.ts"] }),
    );
    expect(problems).toEqual(["import circle of 2 files: server/auth/session.ts, server/memory/identity.ts"]);
  });
});
