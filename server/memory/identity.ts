// Who is calling, from memory (issue W): the sessions of bearer tokens and the API keys this instance has
// resolved lately, each dropped when the database announces a change to it (migrations 0018 and 0020: a
// session ended or changed, a user's name, email, role or ban, a key revoked or changed), and served only
// while the memory feed vouches for it (feed.ts). A miss, or memory that cannot vouch for itself, reads the
// database as before (server/auth/session.ts, server/auth/api-keys.ts).
import type { ResolvedSession } from "../../db/schema/account-values.js";
import type { MemoryConsumer, MemoryFeed } from "./feed.js";
import { createRecall, type Recall } from "./recall.js";

/** Sessions, and keys, remembered at most: ~1 KB each (docs/scaling.md "Reads from memory"). */
export const REMEMBERED_SESSIONS = 100_000;
export const REMEMBERED_KEYS = 10_000;

/** A key as its check reads it (server/auth/api-keys.ts). */
export type KeyRecord = {
  id: string;
  name: string;
  producer: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
};

export type IdentityMemory = MemoryConsumer & {
  /** Resolved sessions by bearer token, and key records by secret hash. */
  sessions: Recall<NonNullable<ResolvedSession>>;
  keys: Recall<KeyRecord>;
  /** Whether memory may be served now. */
  current(): boolean;
  attach(feed: MemoryFeed): void;
};

export function createIdentityMemory(usableSession: (resolved: NonNullable<ResolvedSession>, now: number) => boolean): IdentityMemory {
  let feed: MemoryFeed | undefined;
  const sessions = createRecall<NonNullable<ResolvedSession>>({
    max: REMEMBERED_SESSIONS,
    tagsOf: ({ user, session }) =>
      session.impersonatedBy
        ? [`session:${session.id}`, `user:${user.id}`, `user:${session.impersonatedBy.id}`]
        : [`session:${session.id}`, `user:${user.id}`],
    usable: usableSession,
  });
  const keys = createRecall<KeyRecord>({
    max: REMEMBERED_KEYS,
    tagsOf: (key) => [`key:${key.id}`],
    // Revoked and expired keys are remembered too: their refusal is as hot as an answer.
    usable: () => true,
  });
  return {
    sessions,
    keys,
    channels: {
      session_ended: (id) => sessions.forget(`session:${id}`),
      session_changed: (id) => sessions.forget(`session:${id}`),
      user_changed: (id) => sessions.forget(`user:${id}`),
      api_key_revoked: (id) => keys.forget(`key:${id}`),
      api_key_changed: (id) => keys.forget(`key:${id}`),
    },
    async reload() {
      sessions.clear();
      keys.clear();
    },
    current: () => feed?.current() ?? false,
    attach(given) {
      feed = given;
    },
  };
}
