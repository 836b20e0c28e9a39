// Pure rules of the inbox query (docs/api.md#inbox-listing): no I/O, unit-tested on their own.

export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 100;

/** Query values arrive as strings, or arrays when a key repeats (`?page=2&page=3`): the first one counts. */
export function firstValue(value: unknown): unknown {
  return Array.isArray(value) ? (value as unknown[])[0] : value;
}

/**
 * A whole number from a query value, or null when it is not numeric. Fractions are floored (2.7 → 2),
 * so "zero" covers everything below 1 that is not negative. Infinity is not numeric.
 */
function wholeNumber(value: unknown): number | null {
  const first = firstValue(value);
  if (typeof first === "string" && first.trim() === "") return null;
  const n = typeof first === "number" ? first : typeof first === "string" ? Number(first) : Number.NaN;
  return Number.isFinite(n) ? Math.floor(n) : null;
}

/** Default 1; non-numeric or zero → 1; below 1 → 1. */
export function normalizePage(value: unknown): number {
  const n = wholeNumber(value);
  if (n === null || n < 1) return DEFAULT_PAGE;
  // Keeps the offset an exact integer that PostgreSQL's bigint accepts.
  return Math.min(n, Math.floor(Number.MAX_SAFE_INTEGER / MAX_LIMIT));
}

/** Default 30; non-numeric or zero → 30; otherwise clamped to 1..100. */
export function normalizeLimit(value: unknown): number {
  const n = wholeNumber(value);
  if (n === null || n === 0) return DEFAULT_LIMIT;
  return Math.min(Math.max(n, 1), MAX_LIMIT);
}

export type PageWindow = { page: number; limit: number; offset: number };

export function pageWindow(page: unknown, limit: unknown): PageWindow {
  const p = normalizePage(page);
  const l = normalizeLimit(limit);
  return { page: p, limit: l, offset: (p - 1) * l };
}

export const hasMore = (window: PageWindow, total: number): boolean => window.page * window.limit < total;
