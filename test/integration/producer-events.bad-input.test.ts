// Bad input of the producer API (docs/producers.md#sending-notifications-from-a-service): text of every kind (NUL,
// lone surrogates, SQL metacharacters) in any field of an event, nested in `data` too, as a value or as a key.
// The batch is always answered 200; an event whose text PostgreSQL cannot store is rejected alone, naming the
// field, and the good events beside it are created.
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notificationEvents } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { storable, text } from "../helpers/bad-input-arbitraries.js";
import { eventFor, producer } from "../helpers/producers.js";

/** Where the string goes: a top-level field, a value nested in data, or a key of data. */
type Place = "title" | "body" | "type" | "url" | "userId" | "data.note" | "data.thread.tags.1" | "data key";
const PLACES: Place[] = ["title", "body", "type", "url", "userId", "data.note", "data.thread.tags.1", "data key"];

function eventWith(userId: string, place: Place, s: string) {
  switch (place) {
    case "data.note":
      return eventFor(userId, { data: { note: s } });
    case "data.thread.tags.1":
      return eventFor(userId, { data: { thread: { tags: ["first", s] } } });
    case "data key":
      return eventFor(userId, { data: { [s]: 1 } });
    default:
      return eventFor(userId, { [place]: s });
  }
}

describe("producer API: bad text in an event", () => {
  const t = useTestApp();
  const p = producer(t);

  it("rejects only the event whose text cannot be stored, naming its field; never a 500 or a whole batch refused", async () => {
    const key = await p.key();
    const user = await t().signUp();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PLACES), fc.oneof(text(60), fc.constantFrom("constructor", "prototype")), async (place, s) => {
        // A `__proto__` key refuses the whole body as malformed JSON, on every route (docs/api.md#errors).
        fc.pre(!(place === "data key" && s === "__proto__"));
        const events = [eventFor(user.id), eventWith(user.id, place, s), eventFor(user.id)];
        const res = await p.send(key, events);
        expect(res.statusCode, res.body).toBe(200);
        const results = (res.json() as { data: { results: { status: string; error?: string }[] } }).data.results;
        expect([results[0]!.status, results[2]!.status]).toEqual(["created", "created"]);
        const field = place === "data key" ? "data" : place;
        if (!storable(s)) {
          expect(results[1]).toMatchObject({
            status: "rejected",
            error: expect.stringMatching(new RegExp(`^${field.replace(/\./g, "\\.")}: `)),
          });
        } else if (place.startsWith("data")) {
          // Any storable text is fine in data (a key of data may be empty, or anything else).
          expect(results[1]).toMatchObject({ status: "created" });
        }
        const stored = await t()
          .db.db.select({ eventId: notificationEvents.eventId })
          .from(notificationEvents)
          .where(eq(notificationEvents.eventId, events[1]!.eventId));
        expect(stored.length).toBe(results[1]!.status === "created" ? 1 : 0);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
