// The adapter wrapper of server/auth/hashed-session-tokens.ts on a recording fake: what reaches the database
// is hashed, what better-auth gets back carries the raw token it named, and other models pass untouched.
// The paths better-auth takes in this service are tested end to end in session-tokens-at-rest.test.ts; the
// `in` lookup (findSessions, used by the multi-session plugin) is only reachable here.
import type { DBAdapter, DBTransactionAdapter } from "better-auth/adapters";
import { describe, expect, it } from "vitest";
import { hashedSessionTokens, sessionTokenHash } from "../../server/auth/hashed-session-tokens.js";

type Call = { op: string; args: Record<string, unknown> };

/** An adapter that records each call and answers with the rows it is given. */
function fakeAdapter(rows: Record<string, unknown>[]) {
  const calls: Call[] = [];
  const record =
    (op: string, answer: (args: Record<string, unknown>) => unknown) =>
    async (args: Record<string, unknown>): Promise<never> => {
      calls.push({ op, args });
      return answer(args) as never;
    };
  const operations = {
    id: "fake",
    create: record("create", (args) => ({ id: "s1", ...(args.data as object) })),
    findOne: record("findOne", () => rows[0] ?? null),
    findMany: record("findMany", () => rows),
    count: record("count", () => rows.length),
    update: record("update", (args) => ({ ...rows[0], ...(args.update as object) })),
    updateMany: record("updateMany", () => rows.length),
    delete: record("delete", () => undefined),
    deleteMany: record("deleteMany", () => rows.length),
    consumeOne: record("consumeOne", () => rows[0] ?? null),
    incrementOne: record("incrementOne", () => rows[0] ?? null),
  } as unknown as DBTransactionAdapter;
  const adapter = { ...operations, transaction: (callback: (trx: DBTransactionAdapter) => Promise<unknown>) => callback(operations) };
  const wrapped = hashedSessionTokens(() => adapter as unknown as DBAdapter)({});
  return { wrapped, calls };
}

const RAW = "raw-token-of-thirty-two-chars-00";
const HASH = sessionTokenHash(RAW);

describe("hashedSessionTokens", () => {
  it("stores the hash on create and hands the raw token back", async () => {
    const { wrapped, calls } = fakeAdapter([]);
    const made = await wrapped.create<{ token: string; userId: string }>({ model: "session", data: { token: RAW, userId: "u" } });
    expect(calls[0]!.args.data).toEqual({ token: HASH, userId: "u" });
    expect(made.token).toBe(RAW);
  });

  it("looks up by the hash and puts the named raw token back, also for `in` and inside a transaction", async () => {
    const other = "another-raw-token-thirty-two-000";
    const { wrapped, calls } = fakeAdapter([
      { id: "s1", token: HASH },
      { id: "s2", token: sessionTokenHash(other) },
      { id: "s3", token: "some-stored-hash-not-named" },
    ]);
    const one = await wrapped.findOne<{ token: string }>({ model: "session", where: [{ field: "token", value: RAW }] });
    expect(calls[0]!.args.where).toEqual([{ field: "token", value: HASH }]);
    expect(one!.token).toBe(RAW);

    const many = await wrapped.transaction((trx) =>
      trx.findMany<{ token: string }>({ model: "session", where: [{ field: "token", operator: "in", value: [RAW, other] }] }),
    );
    expect(calls[1]!.args.where).toEqual([{ field: "token", operator: "in", value: [HASH, sessionTokenHash(other)] }]);
    // A row nobody named keeps its stored value: there is no token to give back.
    expect(many.map((s) => s.token)).toEqual([RAW, other, "some-stored-hash-not-named"]);
  });

  it("hashes the where and the data of updates and deletes", async () => {
    const { wrapped, calls } = fakeAdapter([{ id: "s1", token: HASH }]);
    const updated = await wrapped.update<{ token: string }>({
      model: "session",
      where: [{ field: "token", value: RAW }],
      update: { expiresAt: new Date(0) },
    });
    expect(updated!.token).toBe(RAW);
    await wrapped.delete({ model: "session", where: [{ field: "token", value: RAW }] });
    await wrapped.deleteMany({ model: "session", where: [{ field: "token", operator: "not_in", value: [RAW] }] });
    expect(calls.map((c) => c.args.where)).toEqual([
      [{ field: "token", value: HASH }],
      [{ field: "token", value: HASH }],
      [{ field: "token", operator: "not_in", value: [HASH] }],
    ]);
  });

  it("hashes a stored value presented as a token again: it is never taken as it is", async () => {
    const { wrapped, calls } = fakeAdapter([]);
    await wrapped.findOne({ model: "session", where: [{ field: "token", value: HASH }] });
    expect(calls[0]!.args.where).toEqual([{ field: "token", value: sessionTokenHash(HASH) }]);
  });

  it("refuses operators a hash cannot answer, and leaves other models alone", async () => {
    const { wrapped, calls } = fakeAdapter([]);
    await expect(
      wrapped.findMany({ model: "session", where: [{ field: "token", operator: "starts_with", value: "abc" }] }),
    ).rejects.toThrow(/stored hashed/);
    await wrapped.findOne({ model: "verification", where: [{ field: "token", value: RAW }] });
    await wrapped.create({ model: "account", data: { token: RAW } });
    expect(calls).toEqual([
      { op: "findOne", args: { model: "verification", where: [{ field: "token", value: RAW }] } },
      { op: "create", args: { model: "account", data: { token: RAW } } },
    ]);
  });
});
