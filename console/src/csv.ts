// Pro ids pasted or uploaded for a new cohort: a column of ids, ids on one line, or a spreadsheet's rows
// (tab, comma, semicolon or pipe separated, read by Papa Parse), with or without a header row. When the rows
// have several columns the operator picks the one holding the ids. The service's rules (1–500 ids, none
// repeated, each 1–200 characters) are checked here so the operator sees what is wrong before anything is sent.
export { MAX_PRO_ID_LENGTH, MAX_PROS_PER_COHORT as MAX_PROS } from "../../server/restriction/limits.js";

import Papa from "papaparse";
import { MAX_PRO_ID_LENGTH, MAX_PROS_PER_COHORT as MAX_PROS } from "../../server/restriction/limits.js";

export type Delimiter = "\t" | ";" | "|" | ",";

export type PastedTable = {
  /** Cells trimmed, rows with no text left out; the first row may be a header. */
  rows: string[][];
  delimiter: Delimiter;
  /** The most cells any row has. */
  width: number;
  /** What the quotes got wrong, by line; the ids read past such a quote cannot be trusted. */
  quoteProblems: string[];
};

/** Where the ids are: one column (0-based), or every cell when the rows are a list wrapped over lines. */
export type IdSource = number | "all";

export type ColumnOption = { source: IdSource; label: string };

/** The operator's decisions for one table (`layout`); they do not carry over to another paste. */
export type TableChoice = { layout: string; header?: boolean; source?: IdSource };

export type ProIdList = {
  /** Nothing typed or uploaded yet (not a problem, only nothing to send). */
  blank: boolean;
  proIds: string[];
  /** The first row's cells, and the same when it is skipped as a header (null when it holds ids). */
  firstRow: string[];
  header: string[] | null;
  /** The first row looks like a header (whether or not the operator agreed). */
  headerDetected: boolean;
  /** Which cells the ids come from, and the other choices when there are several columns. */
  source: IdSource;
  columns: ColumnOption[];
  /** Names this table's shape, for TableChoice. */
  layout: string;
  /** Data rows whose chosen cell is empty: left out. */
  rowsWithoutId: number;
  /** Ids that appear more than once, each listed once, in order of first repeat. */
  duplicates: string[];
  /** Ids longer than the service accepts. */
  tooLong: string[];
  /** Why the list cannot be sent; empty when it can (or when it is blank). */
  problems: string[];
};

// A spreadsheet's paste is tab separated, and a tab is never typed inside an id, so a tab decides. Otherwise
// Papa Parse guesses from the most regular split; on a tie the order decides: a semicolon file (European
// CSV) often has commas inside its cells, the reverse is rare.
const GUESSED: Delimiter[] = [";", "|", ","];

/** A cell a spreadsheet quoted after a space (`pro-1, "pro-2"`) keeps its quotes in Papa Parse: drop them. */
const unquote = (cell: string) => {
  const trimmed = cell.trim();
  return trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"')
    ? trimmed.slice(1, -1).replace(/""/g, '"').trim()
    : trimmed;
};

const lineOf = (text: string, index: number) => text.slice(0, index).split(/\r\n|\r|\n/).length;

export function readTable(text: string): PastedTable {
  const result = Papa.parse<string[]>(text, {
    delimiter: text.includes("\t") ? "\t" : "",
    delimitersToGuess: GUESSED,
    skipEmptyLines: "greedy",
  });
  const rows = result.data.map((row) => row.map(unquote)).filter((row) => row.some((cell) => cell.length > 0));
  const quoteLines = new Set(
    result.errors.filter((e) => e.type === "Quotes").map((e) => (e.index === undefined ? (e.row ?? 0) + 1 : lineOf(text, e.index))),
  );
  return {
    rows,
    delimiter: result.meta.delimiter as Delimiter,
    width: Math.max(0, ...rows.map((row) => row.length)),
    quoteProblems: [...quoteLines].map((line) => `A quote mark on line ${line} is not closed or is followed by more text.`),
  };
}

/** "proId", "pro_id", "Pro IDs", "id", "pro", "Pro ID", "Professional identifier", in any case or spacing. */
export const namesAnId = (cell: string) => {
  const word = cell.toLowerCase().replace(/[^a-z0-9]/g, "");
  return word.length > 0 && /^(pros?|professionals?)?(ids?|identifiers?)?$/.test(word);
};

/** An id as operators paste them: no spaces, a digit somewhere (pro-0200, 7f3a…, 1234). */
const looksLikeAnId = (cell: string) => /\d/.test(cell) && !/\s/.test(cell);

/**
 * The first row is a header when one of its cells names an id, or when in some column it does not look like an
 * id while every cell under it does ("Restricted pros" over pro-1, pro-2). A lone row is a header only when
 * it is a single cell naming an id ("proId" and nothing else).
 */
export function detectHeader(rows: string[][]): boolean {
  const [first, ...rest] = rows;
  if (!first) return false;
  if (rest.length === 0) return first.length === 1 && namesAnId(first[0] ?? "");
  if (first.some(namesAnId)) return true;
  return first.some((cell, column) => {
    const below = rest.map((row) => row[column] ?? "").filter((c) => c.length > 0);
    return cell.length > 0 && !looksLikeAnId(cell) && below.length > 0 && below.every(looksLikeAnId);
  });
}

/** Digits stand for any digits: pro-0200 and pro-7 have one shape, 2024-01-05 another. */
const shapeOf = (cell: string) => cell.replace(/\d+/g, "9");

/**
 * Where the ids are, before the operator says otherwise. One row, rows of unequal length with no header (or
 * under a one-cell header), or cells all of one shape (`pro-1, pro-2` wrapped over lines) are a list: every cell. A table's id column is the one whose
 * header names an id, else the first whose cells all look like ids, else the first.
 */
export function suggestSource(rows: string[][], header: boolean): IdSource {
  const data = header ? rows.slice(1) : rows;
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width <= 1) return 0;
  if (header) {
    // Ids listed under a one-cell header ("proId", then `pro-1,pro-2` lines) are a list, not a table.
    if ((rows[0] ?? []).length <= 1) return "all";
    const named = (rows[0] ?? []).findIndex(namesAnId);
    if (named >= 0) return named;
  } else {
    if (data.length <= 1 || data.some((row) => row.length !== width)) return "all";
    const shapes = new Set(data.flat().map(shapeOf));
    if (shapes.size === 1) return "all";
  }
  for (let column = 0; column < width; column++) {
    const cells = data.map((row) => row[column] ?? "").filter((c) => c.length > 0);
    if (cells.length > 0 && cells.every(looksLikeAnId)) return column;
  }
  return 0;
}

const SAMPLE = 3;

/**
 * The choices of a table with several columns: each column by its header or first values, and every cell.
 * None for one column, or for one row without a header (ids on one line are a list, not a table).
 */
export function columnOptions(rows: string[][], header: boolean): ColumnOption[] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width <= 1 || (rows.length <= 1 && !header)) return [];
  const data = header ? rows.slice(1) : rows;
  const options: ColumnOption[] = [];
  for (let column = 0; column < width; column++) {
    const cells = data.map((row) => row[column] ?? "").filter((c) => c.length > 0);
    const sample = cells.slice(0, SAMPLE).join(", ") + (cells.length > SAMPLE ? ", …" : "");
    const name = header && rows[0]?.[column] ? `“${rows[0][column]}”` : `Column ${column + 1}`;
    options.push({ source: column, label: `${name}: ${sample || "(empty)"}` });
  }
  options.push({ source: "all", label: "Every cell, as one list" });
  return options;
}

export function parseProIds(text: string, choice?: TableChoice): ProIdList {
  const table = readTable(text);
  const layout = [table.delimiter, table.width, ...(table.rows[0] ?? [])].join("\u0000");
  const chosen = choice?.layout === layout ? choice : undefined;
  const headerDetected = detectHeader(table.rows);
  const hasHeader = chosen?.header ?? headerDetected;
  const columns = columnOptions(table.rows, hasHeader);
  const suggested = suggestSource(table.rows, hasHeader);
  const source = chosen?.source !== undefined && columns.some((c) => c.source === chosen.source) ? chosen.source : suggested;

  const data = hasHeader ? table.rows.slice(1) : table.rows;
  const cells = source === "all" ? data.flat() : data.map((row) => row[source] ?? "");
  const proIds = cells.filter((cell) => cell.length > 0);
  const rowsWithoutId = source === "all" ? 0 : cells.length - proIds.length;

  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const id of proIds) {
    if (seen.has(id)) duplicates.add(id);
    seen.add(id);
  }
  const tooLong = proIds.filter((id) => id.length > MAX_PRO_ID_LENGTH);

  const blank = table.rows.length === 0 && table.quoteProblems.length === 0;
  const problems: string[] = [...table.quoteProblems];
  if (!blank && proIds.length === 0) problems.push("List at least 1 pro id.");
  if (proIds.length > MAX_PROS) problems.push(`A cohort holds at most ${MAX_PROS} pros; this list has ${proIds.length}.`);
  if (duplicates.size > 0) problems.push(`Remove the repeated ids (${duplicates.size}).`);
  if (tooLong.length > 0) problems.push(`Pro ids are at most ${MAX_PRO_ID_LENGTH} characters (${tooLong.length} longer).`);
  return {
    blank,
    proIds,
    firstRow: table.rows[0] ?? [],
    header: hasHeader ? (table.rows[0] ?? null) : null,
    headerDetected,
    source,
    columns,
    layout,
    rowsWithoutId,
    duplicates: [...duplicates],
    tooLong,
    problems,
  };
}

export type DroppedRepeats = {
  /** The pasted text without the repeats, in the table's own delimiter. */
  text: string;
  /** The reading of `text` that gives the same ids as before, each once (its layout may differ). */
  choice: TableChoice;
  /** How many ids were left out: each repeat after an id's first appearance. */
  dropped: number;
};

/**
 * The text with every repeated id left out, read as `choice` reads it: a row whose id came earlier goes
 * (its other cells with it); in a list (every cell) a repeated cell goes and a row left empty goes. The
 * header and rows without an id stay. Reading the new text with the new choice gives each id once, in the
 * order of first appearance. Null when no id repeats, or when a quote mark is broken: the ids read past it
 * cannot be trusted, and writing the table anew would hide that.
 */
export function dropRepeatedIds(text: string, choice?: TableChoice): DroppedRepeats | null {
  const list = parseProIds(text, choice);
  const table = readTable(text);
  if (list.duplicates.length === 0 || table.quoteProblems.length > 0) return null;
  const header = list.header !== null;
  const seen = new Set<string>();
  const isNew = (id: string) => {
    if (id.length === 0) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  };
  const rows = table.rows.flatMap((row, index) => {
    if (header && index === 0) return [row];
    if (list.source !== "all") return isNew(row[list.source] ?? "") ? [row] : [];
    const kept = row.filter((cell) => cell.length === 0 || isNew(cell));
    return kept.some((cell) => cell.length > 0) ? [kept] : [];
  });
  const out = Papa.unparse(rows, { delimiter: table.delimiter, newline: "\n" });
  const layout = parseProIds(out).layout;
  return {
    text: out,
    choice: { layout, header, source: list.source },
    dropped: list.proIds.length - seen.size,
  };
}
