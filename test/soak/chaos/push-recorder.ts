// The loopback push service: records every push that arrives (its endpoint, the title it carries (the producer's eventId),
// when it arrived and when its answer went out) and can be dropped for a while, then brought back on its port.
// A drop cuts every connection; the last push on each may have been answered without the sender reading the
// answer, and such a push is recorded as cut: the sender could not know it arrived.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { makeSubscriber, type Subscriber } from "../../../tools/local-push-service.js";
import { now, write } from "./history.js";

export async function startPushRecorder() {
  const subscribers = new Map<string, Subscriber>();
  const sockets = new Set<Socket>();
  /**
   * The last push that arrived on each open connection. The sender sends its next push on a connection only
   * after reading the answer to the one before, so only this one may have an answer the sender never read.
   */
  const lastOn = new Map<Socket, { path: string; title: string | null; arrivedAt: number }>();
  let arrivals = 0;
  const handler = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const arrivedAt = now();
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      let title: string | null = null;
      try {
        const payload = subscribers.get(path)?.decrypt(Buffer.concat(chunks)) as { title?: string } | undefined;
        title = payload?.title ?? null;
      } catch {
        // Not decryptable: recorded without its notification, and the checker counts it by endpoint.
      }
      arrivals++;
      lastOn.set(req.socket, { path, title, arrivedAt });
      // Answered a little later, so that a second send while the first is open would be seen as an overlap.
      let status = 0;
      res.on("close", () => write({ t: "push", path, title, arrivedAt, closedAt: now(), status }));
      setTimeout(() => {
        if (res.destroyed) return;
        status = 201;
        res.writeHead(201).end();
      }, 20);
    });
  });
  handler.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => {
      sockets.delete(s);
      lastOn.delete(s);
    });
  });
  const listen = (server: Server, port: number) => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  await listen(handler, 0);
  const port = (handler.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  let up = true;
  return {
    origin,
    arrivals: () => arrivals,
    /** A fresh endpoint for a user's browser, with the keys to read what is pushed to it. */
    subscribe(label: string) {
      const subscriber = makeSubscriber();
      const path = `/push/${label}/${randomBytes(6).toString("hex")}`;
      subscribers.set(path, subscriber);
      return { endpoint: `${origin}${path}`, p256dh: subscriber.p256dh, auth: subscriber.auth };
    },
    /** Stops listening and cuts every connection: pushes fail with a network error until restore(). */
    async drop() {
      if (!up) return;
      up = false;
      const cutAt = now();
      for (const s of sockets) {
        const last = lastOn.get(s);
        if (last) write({ t: "push-cut", ...last, cutAt });
        s.destroy();
      }
      await new Promise<void>((resolve) => handler.close(() => resolve()));
    },
    async restore() {
      if (up) return;
      await listen(handler, port);
      up = true;
    },
    async close() {
      if (!up) return;
      up = false;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => handler.close(() => resolve()));
    },
  };
}

export type PushRecorder = Awaited<ReturnType<typeof startPushRecorder>>;
