// A bounded map of answers read from the database (a session, an API key), each dropped as soon as an
// announcement names what it was read from. Pure: no I/O, unit-tested in test/unit/memory-recall.test.ts.
//
// The one race it must close: a read that starts before a change commits and ends after that change's
// announcement was heard would remember the answer from before the change, for good. `epoch()` is taken
// before the read, and `remember` refuses the answer if anything was forgotten since.

export type Recall<V> = {
  /** The remembered answer, unless absent or no longer `usable`. */
  get(key: string): V | undefined;
  /** Counts what was forgotten so far: take it before reading the answer `remember` is given. */
  epoch(): number;
  /** Keeps an answer read after `epoch` was taken, unless something was forgotten since. */
  remember(key: string, value: V, epoch: number): void;
  /** Drops every answer read from `tag` (a user, a session, a key). */
  forget(tag: string): void;
  /** Drops everything: after a gap in listening. */
  clear(): void;
  size(): number;
};

export type RecallOptions<V> = {
  /** Answers kept at most; the oldest goes first. */
  max: number;
  /** What an answer was read from: an announcement naming any of these drops it. */
  tagsOf(value: V): readonly string[];
  /** False once an answer may no longer be given from memory (it expired). */
  usable(value: V, now: number): boolean;
  now?: () => number;
};

export function createRecall<V>(options: RecallOptions<V>): Recall<V> {
  const now = options.now ?? Date.now;
  const values = new Map<string, V>();
  const keysByTag = new Map<string, Set<string>>();
  let forgotten = 0;

  function drop(key: string) {
    const value = values.get(key);
    if (value === undefined) return;
    values.delete(key);
    for (const tag of options.tagsOf(value)) {
      const keys = keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) keysByTag.delete(tag);
    }
  }

  return {
    get(key) {
      const value = values.get(key);
      if (value === undefined) return undefined;
      if (options.usable(value, now())) return value;
      drop(key);
      return undefined;
    },
    epoch: () => forgotten,
    remember(key, value, epoch) {
      if (epoch !== forgotten) return;
      drop(key);
      values.set(key, value);
      for (const tag of options.tagsOf(value)) {
        const keys = keysByTag.get(tag) ?? new Set<string>();
        keysByTag.set(tag, keys);
        keys.add(key);
      }
      if (values.size > options.max) drop(values.keys().next().value!);
    },
    forget(tag) {
      forgotten++;
      for (const key of keysByTag.get(tag) ?? []) drop(key);
    },
    clear() {
      forgotten++;
      values.clear();
      keysByTag.clear();
    },
    size: () => values.size,
  };
}
