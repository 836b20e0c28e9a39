// The REST edge's reading of a query string. Procedures take plain values, so what is particular to query
// strings is settled here: a key given more than once (Fastify gives an array), and numbers sent as text.

/**
 * How a query value is read for the procedure: as text; as a number, where text that is not one is left
 * out (the procedure's default applies, as the inbox's page and limit want); or as a strict number, where
 * such text is passed on as text for the procedure to refuse (400).
 */
export type QueryField = "text" | "number" | "strict-number";

/** A number from query text; blank, non-numeric and infinite text is none (the field is left out). */
export function queryNumber(text: string): number | undefined {
  const n = text.trim() === "" ? Number.NaN : Number(text);
  return Number.isFinite(n) ? n : undefined;
}

const readers: Record<QueryField, (text: string) => string | number | undefined> = {
  text: (text) => text,
  number: queryNumber,
  // Blank text too: `?limit=` is a bad value, not an absent one.
  "strict-number": (text) => queryNumber(text) ?? text,
};

type Fields = Record<string, string | number>;

export type QueryInput = {
  /** The first value of each declared key, read; undeclared keys and values that read as nothing are left out. */
  input: Fields;
  /** The later values of repeated keys, each read into an input of its own, so it can be refused like the first. */
  repeats: Fields[];
};

/** Reads the declared fields of a parsed query string (a value is a string, or an array when its key repeats). */
export function readQuery(fields: Readonly<Record<string, QueryField>>, query: Readonly<Record<string, unknown>>): QueryInput {
  const input: Fields = {};
  const repeats: Fields[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const given = query[key];
    const texts = (Array.isArray(given) ? given : [given]).filter((v): v is string => typeof v === "string");
    texts.forEach((text, i) => {
      const value = readers[field](text);
      if (value === undefined) return;
      if (i === 0) input[key] = value;
      else repeats.push({ [key]: value });
    });
  }
  return { input, repeats };
}
