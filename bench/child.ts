// The child-process side of bench/servers.ts: report the listening port to the parent (or print it when
// run alone), answer its probes (heap after a forced GC, CPU used, and what the server adds), and stop on the
// parent's "stop", on SIGTERM/SIGINT, or when the parent goes away.
/**
 * The URL of a compiled module of the service in build/server/ (`npm run bench` builds it first, its
 * `prebench`): the product's children run the service as `npm start` does, not its sources through tsx.
 */
export const builtServer = (path: string) => new URL(`../build/server/${path}`, import.meta.url).href;

/** What a server adds to its probe answers (the product: its hot reads by where they were answered from). */
export type ProbeExtra = () => Promise<Record<string, unknown>>;

export function serveForParent(name: string, address: string, close: () => Promise<void>, extra?: ProbeExtra): void {
  const port = Number(new URL(address).port);
  if (process.send) process.send({ ready: port });
  else console.log(`${name} listening on ${address}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.on("message", (message: unknown) => {
    if (message === "stop") void stop();
    const probe = message as { probe?: number; gc?: boolean } | null;
    if (typeof probe?.probe === "number") void answerProbe(probe.probe, probe.gc === true, extra);
  });
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  // The parent went away: nothing else will ever stop this process.
  process.on("disconnect", () => void stop());
}

/** The parent's question about this process; collecting twice also frees what the first pass finalized. */
async function answerProbe(id: number, gc: boolean, extra: ProbeExtra | undefined): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    collect();
    collect();
  }
  const { heapUsed, rss } = process.memoryUsage();
  const more = extra ? await extra() : {};
  process.send?.({ ...more, probe: id, heapUsed, rss, cpu: process.cpuUsage(), collected: gc && collect !== undefined });
}
