// Pure rules of the inbox query (docs/api.md#inbox-listing): no I/O, unit-tested on their own.

export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 100;

/**
 * A whole number, or null when there is none. Fractions are floored (2.7 → 2), so "zero" covers everything
 * below 1 that is not negative. NaN and Infinity are no number.
 */
function wholeNumber(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? Math.floor(value) : null;
}

/** Default 1; zero → 1; below 1 → 1. (Over REST, a value that is not numeric is no value: see rest/query.ts.) */
export function normalizePage(value: number | undefined): number {
  const n = wholeNumber(value);
  if (n === null || n < 1) return DEFAULT_PAGE;
  // Keeps the offset an exact integer that PostgreSQL's bigint accepts.
  return Math.min(n, Math.floor(Number.MAX_SAFE_INTEGER / MAX_LIMIT));
}

/** Default 30; zero → 30; otherwise clamped to 1..100. */
export function normalizeLimit(value: number | undefined): number {
  const n = wholeNumber(value);
  if (n === null || n === 0) return DEFAULT_LIMIT;
  return Math.min(Math.max(n, 1), MAX_LIMIT);
}

export type PageWindow = { page: number; limit: number; offset: number };

export function pageWindow(page: number | undefined, limit: number | undefined): PageWindow {
  const p = normalizePage(page);
  const l = normalizeLimit(limit);
  return { page: p, limit: l, offset: (p - 1) * l };
}

export const hasMore = (window: PageWindow, total: number): boolean => window.page * window.limit < total;
