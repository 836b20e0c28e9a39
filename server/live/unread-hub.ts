// The live unread count's fan-out inside one instance (docs/api.md#live-unread-count). The database
// announces which users' unread counts changed (migration 0007's triggers, NOTIFY at commit); the hub reads
// each such user's count once and hands it to every open stream of that user. A burst of changes while a
// read is under way costs one more read, not one per change. No I/O of its own: unit-tested with fakes.

import { TooManyRequestsError } from "../errors/errors.js";

/** Over the per-user cap of open streams: 429 with Retry-After, as any limit. */
export class TooManyStreamsError extends TooManyRequestsError {
  constructor(max: number) {
    super(STREAM_RETRY_AFTER_SECONDS, `At most ${max} live streams per user are open at once; close one first`);
  }
}

/** One open stream: where its events go, and how to end it. */
export type UnreadSink = {
  userId: string;
  sessionId: string;
  send(count: number): void;
  close(): void;
};

export type UnreadHub = {
  /**
   * Starts delivering to `sink`; the function stops it (without closing the sink). Throws a
   * TooManyRequestsError when the user already has `maxPerUser` streams open on this instance.
   */
  add(sink: UnreadSink): () => void;
  /** The database said this user's notifications changed. */
  userChanged(userId: string): void;
  /** This session ended (sign-out, revocation): its streams close. */
  sessionEnded(sessionId: string): void;
  /** Announcements of changed counts may have been missed: every user with open streams is read again. */
  recount(): void;
  /** Announcements of ended sessions may have been missed: streams whose session is gone or expired close. */
  recheckSessions(): Promise<void>;
  /** Every stream closes (the instance is shutting down). */
  closeAll(): void;
  readonly openStreams: number;
};

/** How long a caller refused for too many streams is told to wait: until one of theirs has closed, likely. */
const STREAM_RETRY_AFTER_SECONDS = 5;

export function createUnreadHub(deps: {
  countOf(userId: string): Promise<number>;
  /** Of these sessions, those that still exist and have not expired. */
  openSessions?(sessionIds: string[]): Promise<Set<string>>;
  onError?(err: unknown): void;
  /** Open streams one user may have on this instance (one user opened 300: issue K); no cap when absent. */
  maxPerUser?: number;
}): UnreadHub {
  const byUser = new Map<string, Set<UnreadSink>>();
  /** Users whose count is being read; `true` when another change arrived meanwhile. */
  const reading = new Map<string, boolean>();
  let open = 0;

  async function refresh(userId: string): Promise<void> {
    reading.set(userId, false);
    try {
      for (;;) {
        const count = await deps.countOf(userId);
        for (const sink of byUser.get(userId) ?? []) sink.send(count);
        if (!reading.get(userId)) break;
        reading.set(userId, false);
      }
    } catch (err) {
      deps.onError?.(err);
    } finally {
      reading.delete(userId);
    }
  }

  function remove(sink: UnreadSink): void {
    const sinks = byUser.get(sink.userId);
    if (!sinks?.delete(sink)) return;
    open--;
    if (!sinks.size) byUser.delete(sink.userId);
  }

  function userChanged(userId: string): void {
    if (!byUser.has(userId)) return;
    if (reading.has(userId)) reading.set(userId, true);
    else void refresh(userId);
  }

  const everySink = () => [...byUser.values()].flatMap((sinks) => [...sinks]);

  return {
    add(sink) {
      const sinks = byUser.get(sink.userId) ?? new Set();
      if (deps.maxPerUser !== undefined && sinks.size >= deps.maxPerUser) throw new TooManyStreamsError(deps.maxPerUser);
      byUser.set(sink.userId, sinks.add(sink));
      open++;
      return () => remove(sink);
    },
    userChanged,
    sessionEnded(sessionId) {
      for (const sink of everySink()) {
        if (sink.sessionId !== sessionId) continue;
        remove(sink);
        sink.close();
      }
    },
    recount() {
      for (const userId of [...byUser.keys()]) userChanged(userId);
    },
    async recheckSessions() {
      if (!deps.openSessions) return;
      const checked = everySink();
      if (!checked.length) return;
      const stillOpen = await deps.openSessions([...new Set(checked.map((sink) => sink.sessionId))]);
      for (const sink of checked) {
        if (stillOpen.has(sink.sessionId) || !byUser.get(sink.userId)?.has(sink)) continue;
        remove(sink);
        sink.close();
      }
    },
    closeAll() {
      for (const sink of everySink()) {
        remove(sink);
        sink.close();
      }
    },
    get openStreams() {
      return open;
    },
  };
}
