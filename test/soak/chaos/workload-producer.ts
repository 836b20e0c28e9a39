// A producer service: batches of 1–4 events with eventIds of its own, sent again with the same eventIds after
// no answer or a 503 (so a duplicate is never a second notification), each event pushed to the user's browsers.
import { SEED } from "../settings.js";
import { dataOf } from "./client.js";
import { sendRetrying } from "./send.js";
import { actorRng, pause, running, type World } from "./world.js";

const TYPES = ["message.received", "lead.created", "review.posted", "invoice.paid"];

type Result = { eventId: string; status: string; notificationId: string | null };

export async function producerLoop(w: World, name: string) {
  const r = actorRng(name);
  let n = 0;
  while (running()) {
    const size = 1 + r.int(4);
    const events = Array.from({ length: size }, () => {
      const user = r.pick(w.users);
      const eventId = `soak-${SEED}-${name}-${n++}`;
      return { eventId, userId: user.id, type: r.pick(TYPES), title: `Soak ${eventId}` };
    });
    const a = await sendRetrying(
      r,
      {
        actor: name,
        op: "producer: events",
        method: "POST",
        path: "/api/notifications/events",
        body: { events },
        apiKey: { secret: w.producerKey.secret, label: w.producerKey.label },
        keepBody: (b) =>
          (b as { data?: { results?: Result[] } }).data?.results?.map((x) => ({
            eventId: x.eventId,
            status: x.status,
            notificationId: x.notificationId,
          })),
        meta: { events: events.map((e) => ({ eventId: e.eventId, userId: e.userId })) },
      },
      10,
    );
    void dataOf(a);
    await pause(100 + r.int(300));
  }
}
