// What one procedure call costs in tRPC's middleware chain alone, with nothing of the service around it: one
// middleware, an input parser and the resolver, as an admin read passes them (docs/machinery.md, the tRPC
// patch). Run: node --import tsx bench/trpc-chain.ts (prints the median of 7 rounds of 300,000 calls).
import { callTRPCProcedure, initTRPC } from "@trpc/server";
import { z } from "zod";

const t = initTRPC.context<{ user?: { id: string } }>().create();
const caller = t.middleware(({ ctx, next }) => {
  if (!ctx.user) throw new Error("no caller");
  return next();
});
const router = t.router({
  getPro: t.procedure
    .use(caller)
    .input(z.object({ proId: z.string() }))
    .query(({ input }) => ({ proId: input.proId, restrictionActive: false })),
});
const ctx = { user: { id: "u" } };
const call = (i: number) =>
  callTRPCProcedure({
    router,
    path: "getPro",
    type: "query",
    ctx,
    getRawInput: async () => ({ proId: `p${i & 7}` }),
    signal: undefined,
    batchIndex: 0,
  });

const rounds: number[] = [];
for (let round = 0; round < 7; round++) {
  const calls = 300_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await call(i);
  rounds.push(Number(process.hrtime.bigint() - started) / calls);
}
const sorted = [...rounds].sort((a, b) => a - b);
console.log(`a call through the chain: ${Math.round(sorted[3]!)} ns (median of 7 rounds: ${rounds.map(Math.round).join(", ")})`);
