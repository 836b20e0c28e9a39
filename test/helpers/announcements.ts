// Listening to the database's change announcements the way an instance does (server/live/change-feed.ts),
// from a test: every NOTIFY payload heard on a channel, and the items they name.
import type postgres from "postgres";
import { announcedItems } from "../../server/live/change-feed.js";
import { waitFor } from "./wait.js";

export type Heard = {
  /** Every NOTIFY payload, as sent. */
  payloads: string[];
  /** Every item those payloads named, in order heard. */
  items(): string[];
  /** Waits until every one of `expected` has been heard (fails after `withinMs`). */
  until(expected: string[], withinMs?: number): Promise<void>;
  stop(): Promise<void>;
};

export async function hear(session: postgres.Sql, channel: string): Promise<Heard> {
  const payloads: string[] = [];
  const listening = await session.listen(channel, (payload) => payloads.push(payload));
  const items = () => payloads.flatMap(announcedItems);
  return {
    payloads,
    items,
    until: async (expected, withinMs = 10_000) => {
      await waitFor(
        async () => new Set(items()),
        (heard) => expected.every((item) => heard.has(item)),
        { withinMs, what: `announcements on ${channel} of ${expected.length > 3 ? `${expected.length} items` : expected.join(", ")}` },
      );
    },
    stop: () => listening.unlisten(),
  };
}

/** What the relay still has to announce: the rows of change_outbox. */
export async function outboxRows(session: postgres.Sql): Promise<{ id: number; channel: string }[]> {
  return session<{ id: number; channel: string }[]>`select id::int as id, channel from change_outbox order by id`;
}
