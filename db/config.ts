// Where the database is, read from the environment: the part of the configuration that the database
// scripts (migrate, seed) need as much as the server does (server/config.ts builds on it).
import { z } from "zod";

const POOL_SIZE_RULE = { error: "must be a whole number from 1 to 100" };

export const databaseEnvShape = {
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  PGLITE_DIR: z.string().min(1).default(".data/pglite"),
  /** PostgreSQL only: seconds a statement may go without an answer (db/client.ts); whole seconds from 1 to 600. */
  DB_QUERY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).optional(),
  /** PostgreSQL only: connections in the pool of one instance (db/client.ts); 1 to 100. */
  DB_POOL_SIZE: z
    .string()
    .regex(/^\s*\d+\s*$/, POOL_SIZE_RULE)
    .transform(Number)
    .pipe(z.number().min(1, POOL_SIZE_RULE).max(100, POOL_SIZE_RULE))
    .optional(),
};

export type DatabaseSettings = { databaseUrl: string | undefined; pgliteDir: string; queryTimeoutSeconds?: number | undefined };

/** Empty values mean "unset", as they do in most .env files. */
export const withoutEmptyValues = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));

/** One line per bad variable: `NAME: why`. */
export const describeEnvIssues = (error: z.ZodError) =>
  [...new Set(error.issues.map((i) => `${String(i.path[0] ?? "environment")}: ${i.message}`))].join("\n");

/** The database settings; throws an Error whose message is one line per bad variable. */
export function databaseSettings(env: NodeJS.ProcessEnv = process.env): DatabaseSettings {
  const parsed = z.object(databaseEnvShape).safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw new Error(describeEnvIssues(parsed.error));
  return {
    databaseUrl: parsed.data.DATABASE_URL,
    pgliteDir: parsed.data.PGLITE_DIR,
    queryTimeoutSeconds: parsed.data.DB_QUERY_TIMEOUT_SECONDS,
  };
}

/** How a script names the database it works on. */
export const describeDatabase = (settings: DatabaseSettings) => (settings.databaseUrl ? "PostgreSQL" : `PGlite in ${settings.pgliteDir}`);
