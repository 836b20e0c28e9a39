// Does a slower server pay more in the kernel for each request? (issue AE, fifteenth round.) Bare (bench/bare.ts)
// loaded on the pro-status route as it is, with 20 µs of JavaScript burnt on each request, and with the
// product's security headers and request id, each twice in turn. Prints each run's req/s and the server's user
// and kernel CPU a request. No database. Run: node --import tsx bench/slower-bare.ts [--duration=S] (default 6).
import { parseArgs } from "node:util";
import { runLoad } from "./load.js";
import { positive } from "./options.js";
import { startServer } from "./servers.js";

const { values } = parseArgs({ options: { duration: { type: "string" } }, strict: true });
const duration = positive("--duration", values.duration, 6);
const VARIANTS: { name: string; env: Record<string, string> }[] = [
  { name: "bare", env: {} },
  { name: "bare + 20 µs of JavaScript", env: { BARE_BURN_US: "20" } },
  { name: "bare + the product's headers", env: { BARE_HEADERS: "1" } },
];
const µs = (ms: number | null) => (ms === null ? "?" : (ms * 1000).toFixed(1));

for (let round = 1; round <= 2; round++) {
  for (const variant of VARIANTS) {
    const server = await startServer("bare", "./bare.ts", variant.env);
    try {
      const plan = { method: "GET" as const, path: "/api/admin/restriction/pro-1", headers: {} };
      const r = await runLoad(server.origin, plan, { connections: 10, duration, warmup: 2, pid: server.pid });
      const user = r.cpuMsPerRequest === null || r.kernelMsPerRequest === null ? null : r.cpuMsPerRequest - r.kernelMsPerRequest;
      console.log(
        `#${round} ${variant.name.padEnd(30)} ${Math.round(r.rps).toString().padStart(6)} req/s  user ${µs(user)} µs  kernel ${µs(r.kernelMsPerRequest)} µs a request  load gen ${µs(r.clientCpuMsPerRequest)} µs`,
      );
    } finally {
      await server.stop();
    }
  }
}
