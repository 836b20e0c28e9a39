// npm run soak: SOAK_SECONDS (default 60) of mixed traffic from several users and an admin against the real
// server (openService, as server/main.ts runs it) on a fresh PostgreSQL database, over HTTP on 127.0.0.1.
// Prints totals per operation, the errors (an answer other than the one the operation expects, or no
// answer), and memory at start and end; exits 1 on any error. Not part of npm test. The SOAK_* settings
// (SOAK_SECONDS, SOAK_DATABASE_URL, SOAK_USERS, SOAK_MAX_HEAP_GROWTH_MB) are described in settings.ts.
import { type Actor, control, signUp } from "./actors.js";
import { adminLoop } from "./admin-traffic.js";
import { setBase } from "./http.js";
import { memory, printReport, sampleProgress, showMemory } from "./report.js";
import { adminEmail, soakServer } from "./server.js";
import { SECONDS, USERS } from "./settings.js";
import { userLoop } from "./user-traffic.js";

async function main(): Promise<number> {
  const server = await soakServer();
  const onSignal = () => {
    console.log("\ninterrupted: stopping the traffic, then cleaning up");
    control.stopping = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const base = await server.start();
    setBase(base);
    const adminActor = await signUp(adminEmail);
    const users: Actor[] = [];
    for (let i = 0; i < USERS; i++) users.push(await signUp(`soak-user-${i}@soak.test`));
    // Each user's browsers: a few endpoints that accept, one the push service says is gone (410).
    const endpoints = users.map(() => [server.push.endpoint(201), server.push.endpoint(201), server.push.endpoint(410)]);

    console.log(`soak: ${SECONDS} s, ${USERS} users and 1 admin, server ${base}, database ${server.dbName} on ${server.dbHost}`);
    const start = memory();
    console.log(`memory at start: ${showMemory(start)}`);

    const began = Date.now();
    const deadline = began + SECONDS * 1000;
    const progress = sampleProgress(began);
    try {
      await Promise.all([
        adminLoop(adminActor, users, 1, deadline),
        ...users.map((user, i) => userLoop(user, 100 + i, deadline, endpoints[i]!)),
      ]);
    } finally {
      progress.stop();
    }
    const elapsed = (Date.now() - began) / 1000;
    const end = memory();
    const passed = printReport(elapsed, start, end, progress.samples);
    if (control.stopping) return 1;
    return passed ? 0 : 1;
  } finally {
    await server.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
