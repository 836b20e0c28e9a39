// The SSE clients of bench/streams.ts and bench/ofrep-streams.ts, in a process of their own so that their
// sockets and buffers are neither in the server's heap nor on its event loop. Two kinds of stream:
//   unread-count: GET /api/notifications/stream with a bearer token; ready at its first `unread-count`
//                 event (the count on connect); every later one is recorded with its count
//   ofrep:        GET of the URL a bulk evaluation handed out; ready at the server's first bytes
//                 (`retry` and `: connected`); every `message` event is recorded with its ETag
// Driven by the parent over IPC:
//   {open}   → opens every stream (bounded concurrency), answers {opened} once each is ready
//   {expect} → answers {delivered} once every stream following those users (or pros) has recorded an event
//   {report} → answers {report} with every event each stream recorded
//   {close}  → destroys every socket and exits
// Times are wall-clock milliseconds (performance.timeOrigin + now()), comparable with the parent's.
import http from "node:http";

/** One stream: `follows` is the user (unread-count) or the pro (ofrep) it follows. */
export type ClientStream = { follows: string } & ({ kind: "unread-count"; token: string } | { kind: "ofrep"; url: string });
/** An event after the stream was ready: the unread count it carried, or the ETag of a refetchEvaluation. */
export type StreamEvent = [value: number | string, at: number];
export type StreamReport = { follows: string; events: StreamEvent[] };
export type ClientCommand =
  | { type: "open"; origin: string; streams: ClientStream[]; concurrency: number; timeoutMs: number }
  | { type: "expect"; follows: string[] }
  | { type: "report" }
  | { type: "close" };
export type ClientMessage =
  | { type: "opened"; ok: number; failures: string[]; ms: number }
  | { type: "delivered" }
  | { type: "report"; streams: StreamReport[]; ended: number };

const now = () => performance.timeOrigin + performance.now();

type Open = {
  follows: string;
  request: http.ClientRequest;
  ready: boolean;
  events: StreamEvent[];
  /** The server ended the stream. */
  ended: boolean;
};

const streams: Open[] = [];
let waiting: { follows: Set<string> } | null = null;

function send(message: ClientMessage) {
  process.send?.(message);
}

/** Done when every stream following an expected user or pro has recorded an event. */
function checkDelivered() {
  if (!waiting) return;
  const pending = streams.some((s) => waiting!.follows.has(s.follows) && s.events.length === 0);
  if (pending) return;
  waiting = null;
  send({ type: "delivered" });
}

/** The value an SSE block records, or undefined when the block is not an event of this kind of stream. */
function eventValue(kind: ClientStream["kind"], lines: string[]): number | string | undefined {
  const data = lines.find((l) => l.startsWith("data: "));
  if (kind === "unread-count") {
    return lines.includes("event: unread-count") ? (JSON.parse(data!.slice(6)) as { count: number }).count : undefined;
  }
  if (!lines.includes("event: message") || !data) return undefined;
  const message = JSON.parse(data.slice(6)) as { type?: string; etag?: string };
  return message.type === "refetchEvaluation" ? String(message.etag) : undefined;
}

/** One stream: resolves once it is ready, rejects on a refusal or an error before it. */
function openStream(origin: string, target: ClientStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const request =
      target.kind === "unread-count"
        ? http.request(`${origin}/api/notifications/stream`, {
            agent: false,
            headers: { authorization: `Bearer ${target.token}`, accept: "text/event-stream" },
          })
        : http.request(target.url, { agent: false, headers: { accept: "text/event-stream" } });
    const stream: Open = { follows: target.follows, request, ready: false, events: [], ended: false };
    const ready = () => {
      stream.ready = true;
      resolve();
    };
    request.on("error", (err) => reject(err));
    request.on("response", (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`HTTP ${response.statusCode}`));
      }
      streams.push(stream);
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const at = now();
        // An OFREP stream is ready once the server has written to it: it is then following the pro.
        if (target.kind === "ofrep" && !stream.ready) ready();
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const value = eventValue(target.kind, block.split("\n"));
          if (value === undefined) continue;
          // The live unread count's first event is the count on connect: the stream is ready.
          if (!stream.ready) ready();
          else {
            stream.events.push([value, at]);
            checkDelivered();
          }
        }
      });
      response.on("error", () => {});
      response.on("close", () => {
        stream.ended = true;
        reject(new Error("ended before it was ready"));
      });
    });
    request.end();
  });
}

async function openAll(command: Extract<ClientCommand, { type: "open" }>) {
  const started = now();
  const failures: string[] = [];
  let next = 0;
  const deadline = started + command.timeoutMs;
  const worker = async () => {
    while (next < command.streams.length && now() < deadline) {
      const target = command.streams[next++]!;
      await openStream(command.origin, target).catch((err: Error) => failures.push(`${target.follows}: ${err.message}`));
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, worker));
  const ok = streams.filter((s) => s.ready && !s.ended).length;
  if (next < command.streams.length) failures.push(`${command.streams.length - next} not attempted within ${command.timeoutMs} ms`);
  send({ type: "opened", ok, failures: failures.slice(0, 20), ms: now() - started });
}

function closeAll() {
  for (const s of streams) s.request.destroy();
  process.exit(0);
}

process.on("message", (command: ClientCommand) => {
  switch (command.type) {
    case "open":
      void openAll(command);
      break;
    case "expect":
      waiting = { follows: new Set(command.follows) };
      checkDelivered();
      break;
    case "report":
      send({
        type: "report",
        streams: streams.map((s) => ({ follows: s.follows, events: s.events })),
        ended: streams.filter((s) => s.ended).length,
      });
      break;
    case "close":
      closeAll();
  }
});
// The parent went away: nothing else would ever close these sockets.
process.on("disconnect", closeAll);
