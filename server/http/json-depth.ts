// How deeply a JSON text nests, counted before it is parsed. JSON.parse itself copes with thousands of
// levels, but what walks the value afterwards (zod, superjson, better-auth, Drizzle) recurses and runs out of
// stack: ~10,000 levels answered 500 "Maximum call stack size exceeded" (issue K). No input of this service
// nests deeper than a handful of levels.

import { AppError } from "../errors/errors.js";

/** The deepest nesting any request body or tRPC input may have. */
export const MAX_JSON_DEPTH = 64;

/** The refusal of a body or input that nests deeper, on either door. */
export const tooDeeplyNested = () => new AppError("VALIDATION_ERROR", `JSON nests deeper than ${MAX_JSON_DEPTH} levels`);

/** Whether `text` opens more than `max` arrays and objects inside each other; brackets in strings do not count. */
export function jsonNestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting deeper than `max` takes more than `max` characters: a short text (a tRPC query's input) is never read.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
