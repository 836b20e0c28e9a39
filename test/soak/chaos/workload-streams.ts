// Readers that keep streams open: each user's unread-count stream, and OFREP readers that follow each watched
// pro's event stream, evaluating again (with If-None-Match) on every refetchEvaluation. Every stream event is
// in the history; a closed stream is opened again on a random live instance.
import { type Answer, call, instanceCount, instanceUrl } from "./client.js";
import { newId, now, type StreamRec, write } from "./history.js";
import { actorRng, type Key, type Person, pause, running, WATCHED_PROS } from "./world.js";

type Sse = { event: string; data: string };

/** Reads an SSE body until it ends or `signal` aborts, calling `onEvent` for each event. */
async function readSse(res: Response, onEvent: (e: Sse) => void) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) onEvent({ event, data: data.join("\n") });
    }
  }
}

/** Opens `url` as an SSE stream and records it; resolves when the stream ends. */
async function followStream(
  base: Omit<StreamRec, "t" | "sid" | "ev" | "at">,
  url: string,
  headers: Record<string, string>,
  stop: AbortSignal,
  onEvent: (e: Sse, rec: (value: number | string | null) => void) => void,
) {
  const sid = newId();
  const rec = (ev: StreamRec["ev"], extra: Partial<StreamRec> = {}) => write({ t: "stream", sid, ...base, ev, at: now(), ...extra });
  try {
    const res = await fetch(url, { headers, signal: stop });
    if (res.status !== 200) {
      await res.body?.cancel();
      return;
    }
    rec("open");
    let reason = "ended";
    try {
      await readSse(res, (e) => onEvent(e, (value) => rec("event", { value })));
    } catch (err) {
      reason = String((err as Error).name);
    }
    rec("close", { reason });
  } catch {
    // Never opened (the instance is down): the caller tries another.
  }
}

export function unreadStreamLoop(user: Person, label: string, stop: AbortSignal) {
  const r = actorRng(`${label}-stream`);
  return (async () => {
    while (running() && !stop.aborted) {
      const inst = r.int(instanceCount());
      await followStream(
        { kind: "unread", subject: user.id, inst },
        `${instanceUrl(inst)}/api/notifications/stream`,
        { authorization: `Bearer ${user.session.token}` },
        stop,
        (e, rec) => {
          if (e.event === "unread-count") rec((JSON.parse(e.data) as { count: number }).count);
        },
      );
      await pause(200 + r.int(300));
    }
  })();
}

type Flag = { value: boolean };

/** One OFREP reader of one pro: bulk evaluation with its ETag, following the event stream it names. */
export function ofrepFollowerLoop(key: Key, pro: string, label: string, stop: AbortSignal) {
  const r = actorRng(`${label}-${pro}`);
  let etag: string | null = null;
  let value: boolean | null = null;
  const evaluate = async (inst: number): Promise<Answer> => {
    const a = await call({
      actor: label,
      op: etag ? "ofrep: bulk evaluate (If-None-Match)" : "ofrep: bulk evaluate",
      inst,
      method: "POST",
      path: "/ofrep/v1/evaluate/flags",
      body: { context: { targetingKey: pro } },
      apiKey: { secret: key.secret, label: key.label },
      headers: etag ? { "if-none-match": etag } : {},
      // The value this read showed (a 304 shows the one its ETag stands for), judged like any other read.
      metaFrom: (status, body, headers) => {
        if (status === 200) {
          value = (body as { flags: Flag[] }).flags[0]!.value;
          etag = headers?.get("etag") ?? null;
        }
        return status === 200 || status === 304 ? { pro, read: "pro", value } : undefined;
      },
    });
    return a;
  };
  return (async () => {
    while (running() && !stop.aborted) {
      const inst = r.int(instanceCount());
      const first = await evaluate(inst);
      const url = (first.body as { eventStreams?: { url: string }[] } | undefined)?.eventStreams?.[0]?.url;
      if (first.status !== 200 || !url) {
        await pause(300);
        continue;
      }
      await followStream({ kind: "ofrep", subject: pro, inst }, url, {}, stop, (e, rec) => {
        const etagOf = (JSON.parse(e.data) as { etag?: string }).etag ?? null;
        rec(etagOf);
        void evaluate(r.int(instanceCount()));
      });
      await pause(200 + r.int(300));
    }
  })();
}

/** Single evaluations of random watched pros on random instances: many reads for the checker to judge. */
export async function ofrepPollLoop(key: Key, label: string) {
  const r = actorRng(label);
  while (running()) {
    const pro = r.pick(WATCHED_PROS);
    await call({
      actor: label,
      op: "ofrep: evaluate",
      inst: r.int(instanceCount()),
      method: "POST",
      path: "/ofrep/v1/evaluate/flags/restrict-direct-contact",
      body: { context: { targetingKey: pro } },
      apiKey: { secret: key.secret, label: key.label },
      metaFrom: (status, body) => (status === 200 ? { pro, read: "pro", value: (body as Flag).value } : undefined),
    });
    await pause(100 + r.int(200));
  }
}
