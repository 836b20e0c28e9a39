// The inbox search answered from the trigram indexes (db/migrations/0006_trigram_search.sql) finds exactly
// what a case-insensitive, literal substring test finds (docs/api.md#inbox-listing): random inboxes and
// random search texts, wildcards and the escape character included, against an oracle written in plain
// TypeScript. That the indexes answer it at scale is the bench's to show (bench/results/explain-1M.txt).

import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";

// Few letters, so random texts often contain each other; both cases; LIKE's wildcards and escape.
const letter = fc.constantFrom("a", "b", "A", "B", "r", "e", "f", "u", "n", "d", " ", "%", "_", "\\");
const text = (maxLength: number) => fc.array(letter, { maxLength }).map((chars) => chars.join(""));
const inbox = fc.array(
  fc.record({ title: text(12).filter((t) => t.length > 0), body: fc.option(text(20), { nil: null }), deleted: fc.boolean() }),
  { maxLength: 25 },
);
const needle = fc.oneof(
  text(4).filter((t) => t.length > 0),
  fc.constantFrom("refund", "und", "%", "_", "\\", "a%b", "A_"),
);

const contains = (haystack: string | null, search: string) => haystack?.toLowerCase().includes(search.toLowerCase()) === true;

describe("inbox search (trigram indexes)", () => {
  const t = useTestApp();

  it("returns exactly the visible notifications whose title or body contains the text, any case, every character literal", async () => {
    const user = await t().signUp();
    const other = await t().signUp();
    const api = t().caller(user).notifications;

    await fc.assert(
      fc.asyncProperty(inbox, needle, async (rows, search) => {
        await t().db.db.delete(notifications).where(sql`${notifications.userId} in (${user.id}, ${other.id})`);
        const base = Date.now();
        const stored = rows.length
          ? await t()
              .db.db.insert(notifications)
              .values(
                rows.flatMap((row, i) =>
                  // Everyone else's copy of the same row must never be found.
                  [user, other].map((owner) => ({
                    userId: owner.id,
                    eventType: "message.received",
                    category: "messages",
                    title: row.title,
                    body: row.body,
                    dateCreated: new Date(base - i * 1000),
                    deletedAt: row.deleted ? new Date() : null,
                  })),
                ),
              )
              .returning()
          : [];
        const expected = stored
          .filter((n) => n.userId === user.id && n.deletedAt === null)
          .filter((n) => contains(n.title, search) || contains(n.body, search))
          .map((n) => n.id)
          .sort();

        const page = await api.list({ search, limit: 100 });
        expect(page.notifications.map((n) => n.id).sort()).toEqual(expected);
        expect(page.total).toBe(expected.length);
      }),
      { numRuns: 60 },
    );
  });
});
