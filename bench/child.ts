// The child-process side of bench/servers.ts: report the listening port to the parent (or print it when
// run alone), and stop on the parent's "stop", on SIGTERM/SIGINT, or when the parent goes away.
export function serveForParent(name: string, address: string, close: () => Promise<void>): void {
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
  process.on("message", (message) => {
    if (message === "stop") void stop();
  });
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  // The parent went away: nothing else will ever stop this process.
  process.on("disconnect", () => void stop());
}
