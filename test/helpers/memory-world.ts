// A fake database, LISTEN connection and clock for the real memory modules (server/memory/), every answer,
// failure, notification and timer released in an order a fast-check scheduler picks
// (test/unit/memory-interleavings.test.ts). A statement runs in two steps, each released by the scheduler:
// it executes (takes its snapshot, or commits) and later its answer arrives; a database that is down at
// either step fails it ("starting up", a terminated connection: the modules see a rejection either way).
// Commits are numbered; the relay announces them in that order, one scheduler step each, and a terminated
// LISTEN connection loses every announcement until it listens again (on the clock, once the database is up).

import type { SQL } from "drizzle-orm";
import type fc from "fast-check";
import type { Db, DbHandle } from "../../db/client.js";
import type { ResolvedSession } from "../../server/auth/session.js";
import { createUnreadCountMemory, rememberedCount, type UnreadCountMemory } from "../../server/memory/counts.js";
import { type Clock, HEARTBEAT_CHANNEL, type MemoryFeed, recalled, startMemoryFeed } from "../../server/memory/feed.js";
import { afterSettling, fenceOnWrites, wroteMemory } from "../../server/memory/fence.js";
import { createFlagMemory, type FlagMemory, PRO_STATUS_CHANNEL } from "../../server/memory/flags.js";
import { createIdentityMemory, type IdentityMemory } from "../../server/memory/identity.js";

/** A clock whose timers fire only when the test moves it on. */
export function fakeClock(): Clock & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = next++;
      timers.set(id, { at: now + Math.max(0, ms), run });
      return id;
    },
    clearTimeout: (id) => void timers.delete(id as number),
    advance(ms) {
      const until = now + ms;
      for (;;) {
        let due: [number, { at: number; run: () => void }] | undefined;
        for (const entry of timers) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
    pending: () => timers.size,
  };
}

/** What one key (a pro, a user's count, a session) held after each commit that changed it. */
type History<V> = Array<{ version: number; value: V }>;

/** The value at `version`, and every later one: what memory may answer when `version` is vouched for. */
function allowedFrom<V>(history: History<V>, version: number): V[] {
  let atVersion = history[0]!.value;
  const later: V[] = [];
  for (const entry of history) {
    if (entry.version <= version) atVersion = entry.value;
    else later.push(entry.value);
  }
  return [atVersion, ...later];
}

export type WorldAction =
  | { kind: "change"; pro: string; active: boolean | null }
  | { kind: "count"; user: string; delta: number }
  | { kind: "endSession"; session: string }
  | { kind: "write"; pro: string; active: boolean; keyed: boolean }
  | { kind: "writeCount"; user: string; delta: number; keyed: boolean }
  | { kind: "readCount"; user: string }
  | { kind: "readSession"; session: string }
  | { kind: "terminate" }
  | { kind: "down" }
  | { kind: "up" }
  | { kind: "deaf"; deaf: boolean }
  | { kind: "advance"; ms: number };

export type Memory = { feed: MemoryFeed; flags: FlagMemory; identity: IdentityMemory; counts: UnreadCountMemory };

export function memoryWorld(s: fc.Scheduler, keys: { pros: string[]; users: string[]; sessions: string[] }) {
  const clock = fakeClock();
  let version = 0;
  const pros = new Map<string, History<boolean | null>>(keys.pros.map((p) => [p, [{ version: 0, value: null }]]));
  const counts = new Map<string, History<number>>(keys.users.map((u) => [u, [{ version: 0, value: 0 }]]));
  const sessions = new Map<string, History<boolean>>(keys.sessions.map((id) => [id, [{ version: 0, value: true }]]));
  const now = <V>(history: History<V>) => history[history.length - 1]!.value;
  const log: Array<{ channel: string; item: string }> = [];
  let up = true;
  let deaf = false;
  const listening = new Map<string, { onPayload: (payload: string) => void; onRelisten?: () => void }>();
  let connected = true;
  let delivered = 0;
  /** The version each heartbeat was sent at, and the newest such version heard: what memory must hold. */
  const heartbeatSentAt = new Map<string, number>();
  let vouched = 0;
  /** The commit each of this instance's answered writes made: its caller must read it back. */
  const ownWrites = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  const trace: string[] = [];

  const step = async (label: string) => {
    await s.schedule(Promise.resolve(label), label);
    if (!up) throw new Error(`${label}: the database system is starting up`);
  };

  function commit(channel: string, item: string, change?: () => void): number {
    change?.();
    version++;
    log.push({ channel, item });
    trace.push(`commit ${version} ${channel} ${item}`);
    // The relay announces in commit order: each step announces the oldest not yet announced.
    void s.schedule(Promise.resolve(), `announce ${version}`).then(announceNext);
    return version;
  }
  function announceNext() {
    if (!connected || delivered >= log.length) return;
    const { channel, item } = log[delivered++]!;
    if (deaf && channel === HEARTBEAT_CHANNEL) return;
    const sentAt = heartbeatSentAt.get(item);
    if (sentAt !== undefined) vouched = Math.max(vouched, sentAt);
    trace.push(`heard ${channel} ${item}`);
    listening.get(channel)?.onPayload(JSON.stringify([item]));
  }
  function reconnect() {
    if (connected) return;
    if (!up) {
      clock.setTimeout(reconnect, 20);
      return;
    }
    connected = true;
    delivered = log.length;
    trace.push("listening again");
    for (const { onRelisten } of listening.values()) onRelisten?.();
  }

  const statusRows = () =>
    [...pros]
      .filter(([, h]) => now(h) !== null)
      .map(([proId, h]) => ({ proId, restrictionActive: now(h)!, cohortId: null, updatedAt: new Date(0) }));
  async function select() {
    await step("select: executes");
    const rows = statusRows();
    await step("select: answers");
    return rows;
  }
  const db = {
    select: () => ({ from: () => ({ where: () => select() }) }),
    async execute(query: SQL) {
      // The heartbeat: announce(channel, array[item]); the item is its last parameter.
      const item = [...query.queryChunks].reverse().find((c): c is string => typeof c === "string")!;
      heartbeatSentAt.set(item, version);
      await step(`heartbeat ${item.slice(-3)}: commits`);
      commit(HEARTBEAT_CHANNEL, item);
      await step(`heartbeat ${item.slice(-3)}: answers`);
      return [];
    },
  } as unknown as Db;
  const listen: DbHandle["listen"] = async (channel, onPayload, onRelisten) => {
    listening.set(channel, { onPayload, onRelisten });
    return async () => void listening.delete(channel);
  };

  /**
   * A write of this instance as a procedure makes it. Unkeyed, the procedure's transaction commits, then the
   * middleware tells memory (fence or dropped count). Keyed, the middleware runs inside runKeyed's
   * transaction, before its COMMIT, so what it tells memory must wait for afterSettling.
   */
  async function write(label: string, apply: () => number, effect: () => void, keyed: boolean) {
    const commitAndAnswer = async () => {
      await step(`${label}: commits`);
      const at = apply();
      await step(`${label}: answers`);
      return at;
    };
    if (keyed) {
      return afterSettling(async () => {
        try {
          await step(`${label}: writes`);
        } finally {
          effect();
        }
        return commitAndAnswer();
      });
    }
    try {
      await step(`${label}: writes`);
      return await commitAndAnswer();
    } finally {
      effect();
    }
  }

  function act(memory: Memory | undefined, action: WorldAction): Promise<unknown> | undefined {
    trace.push(`do ${JSON.stringify(action)}`);
    switch (action.kind) {
      case "change": {
        const history = pros.get(action.pro)!;
        commit(PRO_STATUS_CHANNEL, action.pro, () => history.push({ version: version + 1, value: action.active }));
        return;
      }
      case "count": {
        const history = counts.get(action.user)!;
        commit("unread_count", action.user, () => history.push({ version: version + 1, value: now(history) + action.delta }));
        return;
      }
      case "endSession": {
        const history = sessions.get(action.session)!;
        if (!now(history)) return;
        commit("session_ended", action.session, () => history.push({ version: version + 1, value: false }));
        return;
      }
      case "write": {
        const history = pros.get(action.pro)!;
        const apply = () => commit(PRO_STATUS_CHANNEL, action.pro, () => history.push({ version: version + 1, value: action.active }));
        return write(`write ${action.pro}`, apply, wroteMemory, action.keyed).then((at) => ownWrites.set(`pro:${action.pro}`, at));
      }
      case "writeCount": {
        if (!memory) return;
        const history = counts.get(action.user)!;
        const apply = () =>
          commit("unread_count", action.user, () => history.push({ version: version + 1, value: now(history) + action.delta }));
        const effect = () => memory.counts.changed([action.user]);
        return write(`write count ${action.user}`, apply, effect, action.keyed).then((at) => ownWrites.set(`count:${action.user}`, at));
      }
      case "readCount": {
        if (!memory) return;
        const history = counts.get(action.user)!;
        return rememberedCount(memory.counts, action.user, async () => {
          await step(`count ${action.user}: executes`);
          const count = now(history);
          await step(`count ${action.user}: answers`);
          return count;
        });
      }
      case "readSession": {
        if (!memory) return;
        const { sessions: recall } = memory.identity;
        if (recalled(memory.identity, recall, action.session, "session")) return;
        const epoch = recall.epoch();
        const history = sessions.get(action.session)!;
        return (async () => {
          await step(`session ${action.session}: executes`);
          const exists = now(history);
          await step(`session ${action.session}: answers`);
          if (exists) recall.remember(action.session, fakeSession(action.session), epoch);
        })();
      }
      case "terminate":
        connected = false;
        delivered = log.length;
        clock.setTimeout(reconnect, 20);
        return;
      case "down":
        up = false;
        return;
      case "up":
        up = true;
        return;
      case "deaf":
        deaf = action.deaf;
        return;
      case "advance":
        clock.advance(action.ms);
        return;
    }
  }

  return {
    clock,
    db,
    listen,
    trace,
    /** Starts the real memory modules on this world; resolves once loaded, as startMemory does. */
    async start(): Promise<Memory> {
      const onError = () => {};
      const flags = createFlagMemory(db, onError, clock);
      const identity = createIdentityMemory(() => true);
      const unread = createUnreadCountMemory();
      const feed = await startMemoryFeed(db, listen, [flags, identity, unread], { clock, onError });
      flags.attach(feed);
      identity.attach(feed);
      unread.attach(feed);
      return { feed, flags, identity, counts: unread };
    },
    fenceWrites: (memory: Memory) => fenceOnWrites(memory.feed),
    /** Runs `action` without waiting for it; its failures are the database's, already expected. */
    act(memory: Memory | undefined, action: WorldAction) {
      const running = act(memory, action);
      if (!running) return;
      const settled = running.catch(() => {}).finally(() => inFlight.delete(settled));
      inFlight.add(settled);
    },
    busy: () => inFlight.size > 0,
    /** Memory's answers that no commit vouched for can justify (properties a and c); empty when none. */
    violations(memory: Memory): string[] {
      const found: string[] = [];
      // OFREP reads `flag`, the pro lookup `status`: the same memory, so they serve and refuse together.
      for (const pro of pros.keys()) {
        const [flag, status] = [memory.flags.flag(pro), memory.flags.status(pro)];
        if (flag?.restrictionActive !== status?.restrictionActive || flag?.cohortId !== status?.cohortId) {
          found.push(`pro:${pro} flag ${JSON.stringify(flag)} disagrees with status ${JSON.stringify(status)}`);
        }
      }
      if (!memory.feed.current()) return found;
      const check = <V>(key: string, history: History<V>, answer: V) => {
        const own = ownWrites.get(key) ?? 0;
        const allowed = allowedFrom(history, Math.max(vouched, own));
        if (!allowed.includes(answer)) {
          const why = own > vouched ? `(c) its own write ${own}` : `(a) the heartbeat sent at ${vouched}`;
          found.push(`${key} answered ${JSON.stringify(answer)} from memory; allowed after ${why}: ${JSON.stringify(allowed)}`);
        }
      };
      for (const [pro, history] of pros) check(`pro:${pro}`, history, memory.flags.status(pro)?.restrictionActive ?? null);
      for (const [user, history] of counts) {
        const remembered = memory.counts.counts.get(user);
        if (remembered) check(`count:${user}`, history, remembered.count);
      }
      for (const [id, history] of sessions) if (memory.identity.sessions.get(id)) check(`session:${id}`, history, true);
      return found;
    },
    /** Every pro's status as the table holds it, and as memory answers it (property b). */
    tables: () => ({
      pros: Object.fromEntries([...pros].map(([p, h]) => [p, now(h)])),
      counts: Object.fromEntries([...counts].map(([u, h]) => [u, now(h)])),
    }),
    heal() {
      up = true;
      deaf = false;
      if (!connected) clock.setTimeout(reconnect, 0);
    },
  };
}

function fakeSession(id: string): NonNullable<ResolvedSession> {
  return { user: { id: `user-of-${id}` }, session: { id, impersonatedBy: null } } as unknown as NonNullable<ResolvedSession>;
}
