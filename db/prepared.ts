// The hot statements (every request's session, the badge, the inbox page, a pro's status, mark-read), built
// once per database with placeholders instead of on every call. Drizzle then skips building the SQL, and
// postgres.js sends each as a server-side prepared statement (Drizzle asks for one when a query is
// `.prepare(name)`d), so PostgreSQL skips parsing and planning too. That used to leave requests hanging
// after backends were terminated; patches/postgres+3.4.9.patch fixed the cause (BENCHMARKS.md, issue J),
// and test/postgres/db-outage*.test.ts holds it. PGlite runs the same statements unprepared.
import type { Db } from "./client.js";

/**
 * `build` run once per database (a prepared statement belongs to the session it was built on, so one is
 * kept for each Db: tests open several). Not for transactions: a `tx` is a different session.
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}
