// Search totals remembered by the state of the inbox they were counted in (issue AE). Counting a search's
// matches is most of its cost (the trigram index is read for every match), and the same search is asked
// again while its pages are turned or the list is refreshed. A remembered total is a fact about one state of
// a user's inbox, named by their notification_counts versions (migration 0025): the list statement uses it
// only when its own snapshot has those same versions, and counts afresh otherwise. So a total is never
// stale, on any instance, and needs no announcement to be dropped. Pure: a bounded map, unit-tested.

/** A search's total, and the inbox version it was counted at. */
export type KnownTotal = { version: string; total: number };

export type SearchTotals = {
  get(key: string): KnownTotal | undefined;
  remember(key: string, known: KnownTotal): void;
  size(): number;
};

/** Totals remembered at most, per process: a key holds up to 200 characters of search (~0.5 KB each). */
export const REMEMBERED_SEARCH_TOTALS = 10_000;

/** One user's search, with or without a category. */
export const searchTotalKey = (userId: string, category: string | null, pattern: string) => JSON.stringify([userId, category, pattern]);

/** Least recently used goes first when full. Any two facts for a key are both true, so the later one simply wins. */
export function createSearchTotals(max = REMEMBERED_SEARCH_TOTALS): SearchTotals {
  const totals = new Map<string, KnownTotal>();
  return {
    get(key) {
      const known = totals.get(key);
      if (known === undefined) return undefined;
      totals.delete(key);
      totals.set(key, known);
      return known;
    },
    remember(key, known) {
      totals.delete(key);
      totals.set(key, known);
      if (totals.size > max) totals.delete(totals.keys().next().value!);
    },
    size: () => totals.size,
  };
}
