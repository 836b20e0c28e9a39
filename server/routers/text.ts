// Pure rule for text that reaches the database: no I/O.
import { z } from "zod";

/**
 * A string PostgreSQL stores exactly as given. NUL cannot be stored in text at all, and a lone surrogate
 * is not Unicode: it would be stored as U+FFFD, so two different inputs could become one value (and the
 * embedded database miscounts its length). Both are the caller's mistake: a 400 naming the field.
 */
export const storableText = (params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .refine((s) => !s.includes("\u0000"), "must not contain NUL characters")
    .refine((s) => s.isWellFormed(), "must be well-formed Unicode (no lone surrogates)");
