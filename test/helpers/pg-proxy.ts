// A TCP proxy in front of PostgreSQL, for faults a test must place exactly: it forwards bytes both ways,
// tells when the client sends a given statement, and cuts every connection at once (a network that drops
// without a word from the server).
import net from "node:net";

export type PgProxy = {
  port: number;
  /** Resolves when a client sends a message containing `text` (e.g. "commit"). */
  sent(text: string): Promise<void>;
  /** Destroys every connection through the proxy, both sides, as a lost network would. */
  cut(): void;
  close(): Promise<void>;
};

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const sockets = new Set<net.Socket>();
  const watchers: { text: Buffer; resolve: () => void }[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (chunk) => {
      for (const w of [...watchers]) {
        if (chunk.includes(w.text)) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve();
        }
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sent: (text) => new Promise((resolve) => watchers.push({ text: Buffer.from(text), resolve })),
    cut() {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
