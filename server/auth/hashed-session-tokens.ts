// Session tokens at rest (docs/machinery.md, "server/auth/hashed-session-tokens.ts"): better-auth keeps a session's token
// as it hands it out, so anyone who reads `sessions` (a backup, a replica, a leaked dump) could act as any
// signed-in user. This wraps better-auth's database adapter so that `sessions.token` holds the token's
// SHA-256 (hex) instead: every write of the token and every lookup by it is hashed on the way in, and the raw
// token the caller already holds is put back into what better-auth reads, since it makes the cookie and the
// `set-auth-token` header from it. Nothing here accepts a hash as a token: a stored value presented as a
// token is hashed again and matches nothing.
//
// It can go once better-auth stores session tokens hashed itself (a migration would then have to agree
// with its encoding).
import { hash } from "node:crypto";
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import type { DBAdapter, DBTransactionAdapter, Where } from "better-auth/adapters";
import { createAuthMiddleware, isAPIError } from "better-auth/api";

/** What `sessions.token` holds for a token: its SHA-256 in lower-case hex, as migration 0022 computes it. */
// One crypto.hash call (a string is hashed as UTF-8): every bearer request hashes its token (issue AE).
export const sessionTokenHash = (token: string) => hash("sha256", token, "hex");

const isSession = (model: string) => model === "session" || model === "sessions";

/** Raw tokens named by a `where`, by the hash that will be looked up in their stead. */
type Named = Map<string, string>;

/**
 * The `where` with every condition on `token` hashed. Only equality and (not) in can be hashed; any other
 * operator on a token is refused rather than run against hashes, where it would silently match nothing.
 */
function hashedWhere(where: Where[] | undefined, named: Named): Where[] | undefined {
  return where?.map((clause) => {
    if (clause.field !== "token") return clause;
    const operator = clause.operator ?? "eq";
    const hash = (value: unknown) => {
      if (typeof value !== "string") throw new Error(`A session token must be a string, not ${typeof value}`);
      const hashed = sessionTokenHash(value);
      named.set(hashed, value);
      return hashed;
    };
    if (operator === "eq" || operator === "ne") return { ...clause, value: hash(clause.value) };
    if ((operator === "in" || operator === "not_in") && Array.isArray(clause.value)) {
      return { ...clause, value: (clause.value as unknown[]).map(hash) };
    }
    throw new Error(`Session tokens are stored hashed: "${operator}" on a token cannot be answered`);
  });
}

/** A session row as better-auth should see it: the raw token back wherever the caller named it. */
function restored<T>(row: T, named: Named): T {
  if (!row || typeof row !== "object") return row;
  const stored = (row as { token?: unknown }).token;
  const raw = typeof stored === "string" ? named.get(stored) : undefined;
  return raw === undefined ? row : { ...row, token: raw };
}

/** The data of a write with its token hashed, the raw token remembered to be handed back. */
function hashedData<T extends Record<string, unknown>>(data: T, named: Named): T {
  if (typeof data.token !== "string") return data;
  const hashed = sessionTokenHash(data.token);
  named.set(hashed, data.token);
  return { ...data, token: hashed };
}

function wrapOperations<A extends DBTransactionAdapter>(inner: A): A {
  return {
    ...inner,
    async create(args) {
      if (!isSession(args.model)) return inner.create(args);
      const named: Named = new Map();
      return restored(await inner.create({ ...args, data: hashedData(args.data, named) }), named);
    },
    async findOne(args) {
      if (!isSession(args.model)) return inner.findOne(args);
      const named: Named = new Map();
      return restored(await inner.findOne({ ...args, where: hashedWhere(args.where, named) ?? [] }), named);
    },
    async findMany(args) {
      if (!isSession(args.model)) return inner.findMany(args);
      const named: Named = new Map();
      const rows = await inner.findMany({ ...args, where: hashedWhere(args.where, named) });
      return rows.map((row) => restored(row, named));
    },
    count(args) {
      if (!isSession(args.model)) return inner.count(args);
      return inner.count({ ...args, where: hashedWhere(args.where, new Map()) });
    },
    async update(args) {
      if (!isSession(args.model)) return inner.update(args);
      const named: Named = new Map();
      const where = hashedWhere(args.where, named) ?? [];
      return restored(await inner.update({ ...args, where, update: hashedData(args.update, named) }), named);
    },
    updateMany(args) {
      if (!isSession(args.model)) return inner.updateMany(args);
      const named: Named = new Map();
      return inner.updateMany({ ...args, where: hashedWhere(args.where, named) ?? [], update: hashedData(args.update, named) });
    },
    delete(args) {
      if (!isSession(args.model)) return inner.delete(args);
      return inner.delete({ ...args, where: hashedWhere(args.where, new Map()) ?? [] });
    },
    deleteMany(args) {
      if (!isSession(args.model)) return inner.deleteMany(args);
      return inner.deleteMany({ ...args, where: hashedWhere(args.where, new Map()) ?? [] });
    },
    async consumeOne(args) {
      if (!isSession(args.model)) return inner.consumeOne(args);
      const named: Named = new Map();
      return restored(await inner.consumeOne({ ...args, where: hashedWhere(args.where, named) ?? [] }), named);
    },
    async incrementOne(args) {
      if (!isSession(args.model)) return inner.incrementOne(args);
      const named: Named = new Map();
      const where = hashedWhere(args.where, named) ?? [];
      const set = args.set && hashedData(args.set, named);
      return restored(await inner.incrementOne({ ...args, where, set }), named);
    },
  };
}

/**
 * better-auth's adapter (e.g. `drizzleAdapter(db, …)`) with session tokens stored as their SHA-256. Every
 * operation is wrapped, those of a transaction's adapter too.
 */
export function hashedSessionTokens(adapter: (options: BetterAuthOptions) => DBAdapter): (options: BetterAuthOptions) => DBAdapter {
  return (options) => {
    const inner = adapter(options);
    return {
      ...wrapOperations(inner),
      transaction: (callback) => inner.transaction((trx) => callback(wrapOperations(trx))),
    };
  };
}

/**
 * Listed sessions (list-sessions, the admin's list-user-sessions) carry the stored hash, not a token, so
 * better-auth's revoke-other-sessions, which deletes each listed session by its token, would delete none.
 * Once it has answered for a signed-in caller, this deletes the caller's other sessions by id instead.
 */
export function revokeOtherSessionsById() {
  return {
    id: "revoke-other-sessions-by-id",
    hooks: {
      after: [
        {
          matcher: (ctx) => ctx.path === "/revoke-other-sessions",
          handler: createAuthMiddleware(async (ctx) => {
            const caller = ctx.context.session;
            const { returned } = ctx.context;
            if (!caller || returned === undefined || isAPIError(returned)) return;
            await ctx.context.adapter.deleteMany({
              model: "session",
              where: [
                { field: "userId", value: caller.user.id },
                { field: "id", operator: "ne", value: caller.session.id },
              ],
            });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
