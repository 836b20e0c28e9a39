// Pro ids pasted or uploaded for a new cohort: one per line or comma separated, an optional "proId"
// header. The service's rules (1–500 ids, none repeated, each 1–200 characters) are checked here so the
// operator sees what is wrong before anything is sent.
export { MAX_PRO_ID_LENGTH, MAX_PROS_PER_COHORT as MAX_PROS } from "../../server/routers/restriction/limits.js";

import { MAX_PRO_ID_LENGTH, MAX_PROS_PER_COHORT as MAX_PROS } from "../../server/routers/restriction/limits.js";

export type ProIdList = {
  proIds: string[];
  /** Ids that appear more than once, each listed once, in order of first repeat. */
  duplicates: string[];
  /** Ids longer than the service accepts. */
  tooLong: string[];
  /** Why the list cannot be sent; empty when it can. */
  problems: string[];
};

const unquote = (cell: string) => {
  const trimmed = cell.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1).replace(/""/g, '"').trim()
    : trimmed;
};

export function parseProIds(text: string): ProIdList {
  const cells = text
    .replace(/^\uFEFF/, "")
    .split(/[\r\n,]+/)
    .map(unquote)
    .filter((cell) => cell.length > 0);
  if (cells[0]?.toLowerCase().replace(/[\s_-]/g, "") === "proid") cells.shift();

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const id of cells) {
    if (seen.has(id)) duplicates.add(id);
    seen.add(id);
  }
  const tooLong = cells.filter((id) => id.length > MAX_PRO_ID_LENGTH);

  const problems: string[] = [];
  if (cells.length === 0) problems.push("List at least 1 pro id.");
  if (cells.length > MAX_PROS) problems.push(`A cohort holds at most ${MAX_PROS} pros; this list has ${cells.length}.`);
  if (duplicates.size > 0) problems.push(`Remove the repeated ids (${duplicates.size}).`);
  if (tooLong.length > 0) problems.push(`Pro ids are at most ${MAX_PRO_ID_LENGTH} characters (${tooLong.length} longer).`);
  return { proIds: cells, duplicates: [...duplicates], tooLong, problems };
}
