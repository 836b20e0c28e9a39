// The SSE clients of bench/streams.ts, in a process of their own so that their sockets and buffers are
// neither in the server's heap nor on its event loop. Driven by the parent over IPC:
//   {open}   → opens every stream (bounded concurrency), answers {opened} once each has its first event
//   {expect} → answers {delivered} once every stream of those users has had an event after its first
//   {report} → answers {report} with every event each stream received after its first
//   {close}  → destroys every socket and exits
// Times are wall-clock milliseconds (performance.timeOrigin + now()), comparable with the parent's.
import http from "node:http";

export type ClientStream = { userId: string; token: string };
export type StreamReport = { userId: string; events: [count: number, at: number][] };
export type ClientCommand =
  | { type: "open"; origin: string; streams: ClientStream[]; concurrency: number; timeoutMs: number }
  | { type: "expect"; userIds: string[] }
  | { type: "report" }
  | { type: "close" };
export type ClientMessage =
  | { type: "opened"; ok: number; failures: string[]; ms: number }
  | { type: "delivered" }
  | { type: "report"; streams: StreamReport[]; ended: number };

const now = () => performance.timeOrigin + performance.now();

type Open = {
  userId: string;
  request: http.ClientRequest;
  /** Every `unread-count` event, the first (sent on connect) included. */
  events: [number, number][];
  /** The server ended the stream. */
  ended: boolean;
};

const streams: Open[] = [];
let waiting: { users: Set<string> } | null = null;

function send(message: ClientMessage) {
  process.send?.(message);
}

/** Done when every stream of every expected user has had an event after its first. */
function checkDelivered() {
  if (!waiting) return;
  const pending = streams.some((s) => waiting!.users.has(s.userId) && s.events.length < 2);
  if (pending) return;
  waiting = null;
  send({ type: "delivered" });
}

/** One stream: resolves at its first event, rejects on a refusal or an error before it. */
function openStream(origin: string, { userId, token }: ClientStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${origin}/api/notifications/stream`, {
      agent: false,
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    });
    const stream: Open = { userId, request, events: [], ended: false };
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
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n");
          if (!lines.includes("event: unread-count")) continue;
          const data = lines.find((l) => l.startsWith("data: "));
          stream.events.push([(JSON.parse(data!.slice(6)) as { count: number }).count, at]);
          if (stream.events.length === 1) resolve();
          else checkDelivered();
        }
      });
      response.on("error", () => {});
      response.on("close", () => {
        stream.ended = true;
        reject(new Error("ended before its first event"));
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
      await openStream(command.origin, target).catch((err: Error) => failures.push(`${target.userId}: ${err.message}`));
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, worker));
  const ok = streams.filter((s) => s.events.length > 0 && !s.ended).length;
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
      waiting = { users: new Set(command.userIds) };
      checkDelivered();
      break;
    case "report":
      send({
        type: "report",
        streams: streams.map((s) => ({ userId: s.userId, events: s.events.slice(1) })),
        ended: streams.filter((s) => s.ended).length,
      });
      break;
    case "close":
      closeAll();
  }
});
// The parent went away: nothing else would ever close these sockets.
process.on("disconnect", closeAll);
