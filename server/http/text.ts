// Pure rule for text that reaches the database: no I/O.
import { z } from "zod";

/**
 * A surrogate that is not half of a pair (with the u flag a pair is one code point, so only a lone one
 * matches). String#isWellFormed says the same, but it is ES2024 and this file's types reach every
 * TypeScript app that imports AppRouter, whose lib may stop at ES2022 (test/consumer).
 */
const LONE_SURROGATE = /\p{Surrogate}/u;
const NUL_MESSAGE = "must not contain NUL characters";
const LONE_SURROGATE_MESSAGE = "must be well-formed Unicode (no lone surrogates)";

/**
 * A string PostgreSQL stores exactly as given. NUL cannot be stored in text at all, and a lone surrogate
 * is not Unicode: it would be stored as U+FFFD, so two different inputs could become one value (and the
 * embedded database miscounts its length). Both are the caller's mistake: a 400 naming the field.
 */
export const storableText = (params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .refine((s) => !s.includes("\u0000"), NUL_MESSAGE)
    .refine((s) => !LONE_SURROGATE.test(s), LONE_SURROGATE_MESSAGE);

/** storableText's rule for text that is not a field of its own (a string or key inside JSON): why not, or null. */
export const unstorable = (s: string): string | null =>
  s.includes("\u0000") ? NUL_MESSAGE : LONE_SURROGATE.test(s) ? LONE_SURROGATE_MESSAGE : null;

/**
 * Refuses text that is empty or only white space ("must not be empty"); the reference states the same rule
 * in JSON Schema (a non-white-space character somewhere), so a validating client refuses what the service does.
 */
export const nonBlank = <T extends z.ZodString>(schema: T): T =>
  schema.refine((s) => s.trim().length > 0, "must not be empty").meta({ minLength: 1, pattern: "\\S" }) as T;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of cohorts and notifications are UUIDs; anything else cannot exist. */
export const isUuid = (value: string) => UUID.test(value);
