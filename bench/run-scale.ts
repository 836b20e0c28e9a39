// The HTTP scenarios at one dataset size: the notifications seeded, the product and the floor started, every
// scenario checked on each target and then loaded; cohort activation and push fan-out timed; EXPLAIN of the hot statements.
import { startPushService } from "../tools/local-push-service.js";
import type { BenchDatabase } from "./database.js";
import { explainHotQueries, formatExplained } from "./explain.js";
import { type ActivationResult, measureCohortActivation, measurePushFanOut, type PushResult } from "./inprocess.js";
import { type LoadResult, probe, runLoad } from "./load.js";
import { bulkEvaluations } from "./ofrep-client.js";
import { fmt, median, type Row, roundRatios } from "./report.js";
import { floorEnv, label, live, log, options, productEnv, profileDir, secret, wanted } from "./run-context.js";
import { buildScenarios, DEFAULT_TARGETS, type Scenario, sessionCookieHeader, type TargetKind } from "./scenarios.js";
import { analyzeAll, hotNotificationIds, type Seeded, seedNotifications } from "./seed.js";
import { addReads, type MemoryReads, NO_READS, type RunningServer, readsSince, startServer } from "./servers.js";

type Target = { kind: TargetKind; label: string; server: RunningServer };

const load = { connections: options.connections, duration: options.duration, warmup: options.warmup };

/** Scenarios also run at a fixed rate, for their latency without queueing. */
const PACED = ["list", "unread-count"];

function report(
  scale: string,
  scenario: string,
  target: string,
  result: LoadResult,
  ratio: number | null,
  bareRatio: number | null = null,
) {
  log(
    `${scale} ${scenario.padEnd(16)} ${target.padEnd(14)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}  cpu ${result.cpuMsPerRequest?.toFixed(2) ?? "?"} ms/req (kernel ${result.kernelMsPerRequest?.toFixed(2) ?? "?"})  load gen ${result.clientCpuMsPerRequest.toFixed(2)} ms/req  machine ${result.machineBusy === null ? "?" : (result.machineBusy * 100).toFixed(0)} % busy${ratio === null ? "" : `  ${ratio.toFixed(2)}× floor`}${bareRatio === null ? "" : `  ${bareRatio.toFixed(2)}× bare`}`,
  );
}

async function startTargets(db: BenchDatabase): Promise<Target[]> {
  const cpuProfDir = options.cpuProf ? profileDir : undefined;
  const start = async (name: string, script: string, env: Record<string, string>) => {
    // BENCH_PRODUCT_NODE_ARGS: flags for the product's node alone (a V8 setting tried, --perf-basic-prof for perf).
    const execArgv = name === "product" ? (process.env.BENCH_PRODUCT_NODE_ARGS?.split(" ").filter(Boolean) ?? []) : [];
    const server = await startServer(name, script, env, { cpuProfDir, execArgv });
    live.running.add(server);
    return server;
  };
  const product = await start("product", "./product-server.ts", productEnv());
  const floor = await start("floor", "./floor.ts", floorEnv(db.url));
  const bare = await start("bare", "./bare.ts", {});
  const targets: Target[] = [
    { kind: "floor", label: "floor", server: floor },
    { kind: "bare", label: "bare", server: bare },
    { kind: "rest", label: "product REST", server: product },
    { kind: "trpc", label: "product tRPC", server: product },
    { kind: "ofrep", label: "product OFREP", server: product },
  ];
  return targets;
}

async function stopTargets(targets: Target[]) {
  const servers = new Set(targets.map((t) => t.server));
  await Promise.all([...servers].map((s) => s.stop()));
  for (const s of servers) live.running.delete(s);
}

/** `items` begun at the `round`-th: each round of a scenario runs its targets in a turned order. */
const turned = <T>(items: readonly T[], round: number) => items.map((_, i) => items[(i + round) % items.length]!);

/** The targets a scenario runs on, the floor first. */
const targetsOf = (scenario: Scenario, targets: Target[]) => targets.filter((t) => (scenario.targets ?? DEFAULT_TARGETS).includes(t.kind));

/**
 * Every target answers the scenario, and they agree on what they answer (the floor does the same job); bare's
 * answers have the right shape but constant values, so it is checked for shape only.
 */
async function verify(scenario: Scenario, targets: Target[]) {
  const answers: { label: string; value: string }[] = [];
  for (const target of targetsOf(scenario, targets)) {
    const { status, body } = await probe(target.server.origin, scenario.plan(target.kind));
    try {
      const value = JSON.stringify(scenario.unwrap(target.kind, status, body));
      if (target.kind !== "bare") answers.push({ label: target.label, value });
    } catch (err) {
      throw new Error(`${scenario.name} on ${target.label}: ${(err as Error).message}`);
    }
  }
  if (scenario.read) {
    const differing = answers.filter((a) => a.value !== answers[0]!.value);
    if (differing.length) {
      throw new Error(`${scenario.name}: targets disagree\n  ${answers.map((a) => `${a.label}: ${a.value.slice(0, 400)}`).join("\n  ")}`);
    }
  }
}

export async function measureScale(db: BenchDatabase, seeded: Seeded, rowsTotal: number, names: string[], rows: Row[]) {
  const scale = label(rowsTotal);
  log(`seeding ${rowsTotal.toLocaleString("en")} notifications (hot user: ${options.hotRows.toLocaleString("en")})`);
  const seedStarted = performance.now();
  await seedNotifications(db.sql, seeded, rowsTotal, options.hotRows);
  await analyzeAll(db.sql);
  log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const ids = await hotNotificationIds(db.sql, seeded.hot.id, 1000);
  const targets = await startTargets(db);
  try {
    let proEtags: string[] | undefined;
    if (names.includes("ofrep-bulk-304") && wanted("ofrep-bulk-304")) {
      // What a client holds: the ETag of the product's last bulk answer for each pro.
      log(`ofrep-bulk-304: the product's ETag of each of the ${seeded.proIds.length.toLocaleString("en")} pros (bulk evaluations)`);
      const product = targets.find((t) => t.kind === "ofrep")!.server.origin;
      proEtags = (await bulkEvaluations(product, seeded.apiKey, seeded.proIds)).map((a) => a.etag);
    }
    const scenarios = buildScenarios({
      hotToken: seeded.hot.token,
      hotCookie: sessionCookieHeader(seeded.hot.token, secret),
      adminToken: seeded.admin.token,
      notificationIds: ids,
      proIds: seeded.proIds,
      apiKey: seeded.apiKey,
      proEtags,
    }).filter((s) => names.includes(s.name) && wanted(s.name));

    for (const scenario of scenarios) {
      await verify(scenario, targets);
      const saturated = (target: Target, duration = load.duration) =>
        runLoad(target.server.origin, scenario.plan(target.kind), { ...load, duration, pid: target.server.pid });
      const row = (target: Target, result: LoadResult, ratio: number | null, more: Partial<Row> = {}): Row => ({
        ...result,
        scale,
        scenario: scenario.name,
        mode: "saturated",
        target: target.label,
        ratio,
        bareRatio: null,
        read: scenario.read,
        ...more,
      });
      // Rounds of the targets back to back, each round in a turned order so that a drift (the machine,
      // PostgreSQL's caches, the rows mark-read rewrites) does not always fall on the same target. A ratio is
      // the median of the rounds' own: against bare where the scenario has it (the floor then runs once),
      // else against the floor.
      const all = targetsOf(scenario, targets);
      const againstBare = all.some((t) => t.kind === "bare");
      const floor = all.find((t) => t.kind === "floor");
      let floorRps: number | null = null;
      if (floor && againstBare) {
        const result = await saturated(floor);
        floorRps = result.rps;
        rows.push(row(floor, result, null));
        report(scale, scenario.name, floor.label, result, null);
      }
      const inRounds = againstBare ? all.filter((t) => t.kind !== "floor") : all;
      const rounds = inRounds.length < 2 ? 1 : againstBare ? options.bareRounds : options.rounds;
      const roundDuration = againstBare ? options.bareDuration : load.duration;
      const results = new Map<Target, LoadResult[]>(inRounds.map((t) => [t, []]));
      // Against bare, the product's hot reads are counted by where they were answered from: a ratio to bare
      // measures reads from memory only while memory vouched for itself.
      const reads = new Map<Target, MemoryReads>();
      const measure = async (target: Target) => {
        const counted = againstBare && target.kind !== "bare";
        const before = counted ? (await target.server.probe({ gc: false })).memoryReads : undefined;
        const result = await saturated(target, roundDuration);
        const after = before && (await target.server.probe({ gc: false })).memoryReads;
        if (before && after) reads.set(target, addReads(reads.get(target) ?? NO_READS, readsSince(before, after)));
        return result;
      };
      for (let round = 0; round < rounds; round++) {
        for (const target of turned(inRounds, round)) results.get(target)!.push(await measure(target));
        const of = (kind: TargetKind) => [...results].find(([t]) => t.kind === kind)?.[1][round]?.rps ?? null;
        const bareRps = of("bare");
        const roundFloorRps = floorRps ?? of("floor");
        for (const [target, measured] of results) {
          const result = measured[round]!;
          const name = rounds > 1 ? `${scenario.name} #${round + 1}` : scenario.name;
          const perFloor = target.kind === "floor" || !roundFloorRps ? null : result.rps / roundFloorRps;
          const perBare = target.kind === "bare" || !bareRps ? null : result.rps / bareRps;
          report(scale, name, target.label, result, perFloor, perBare);
        }
      }
      const roundsOf = (kind: TargetKind) => [...results].find(([t]) => t.kind === kind)?.[1].map((r) => r.rps);
      const bareRounds = roundsOf("bare");
      const floorRounds = roundsOf("floor");
      for (const [target, measured] of results) {
        // The round of median throughput stands for the target; its ratios are the medians of the rounds'.
        const roundRps = measured.map((r) => r.rps);
        const middle = measured.find((r) => r.rps === median(roundRps))!;
        const bareRatio = target.kind === "bare" || !bareRounds ? null : roundRatios(roundRps, bareRounds).ratio;
        const ratio =
          target.kind === "floor"
            ? null
            : floorRounds
              ? roundRatios(roundRps, floorRounds).ratio
              : floorRps
                ? median(roundRps) / floorRps
                : null;
        const counted = reads.get(target);
        const fromMemory =
          counted && counted.memory + counted.database > 0 ? counted.memory / (counted.memory + counted.database) : undefined;
        if (fromMemory !== undefined)
          log(`${scale} ${scenario.name} ${target.label}: ${fmt(fromMemory * 100, 2)} % of the hot reads from memory`);
        rows.push(
          row(target, middle, ratio, {
            bareRatio,
            ...(rounds > 1 ? { roundRps } : {}),
            ...(fromMemory === undefined ? {} : { fromMemory }),
          }),
        );
      }
      if (!PACED.includes(scenario.name)) continue;
      // The ceiling is about throughput: bare is not run paced.
      for (const target of targetsOf(scenario, targets).filter((t) => t.kind !== "bare")) {
        const result = await runLoad(target.server.origin, scenario.plan(target.kind), {
          ...load,
          pid: target.server.pid,
          rate: options.rate,
        });
        rows.push({
          ...result,
          scale,
          scenario: scenario.name,
          mode: "paced",
          target: target.label,
          ratio: null,
          bareRatio: null,
          read: scenario.read,
        });
        report(scale, `${scenario.name}@${options.rate}/s`, target.label, result, null);
      }
    }

    let activation: ActivationResult | null = null;
    let push: PushResult | null = null;
    const big = rowsTotal === options.rows;
    if (big && wanted("cohort-activation")) {
      log(`cohort activation: ${options.activations} activations of ${options.cohortSize} pros`);
      activation = await measureCohortActivation(db.url, seeded, options.activations);
    }
    if (big && wanted("push-fanout")) {
      log(`push fan-out: ${options.pushRounds} × ${options.subscriptions} subscriptions`);
      live.pushService ??= await startPushService();
      push = await measurePushFanOut(
        db.sql,
        targets.find((t) => t.kind === "rest")!.server.origin,
        live.pushService,
        seeded,
        options.subscriptions,
        options.pushRounds,
      );
    }
    await stopTargets(targets);

    log("EXPLAIN (ANALYZE, BUFFERS) of the hot statements");
    const explained = await explainHotQueries(db.url, seeded, ids[ids.length - 1]!);
    const explainText = formatExplained(
      `EXPLAIN (ANALYZE, BUFFERS) at ${rowsTotal.toLocaleString("en")} notifications (hot user: ${options.hotRows.toLocaleString("en")})`,
      explained,
    );
    return { scale, activation, push, explainText, explained };
  } finally {
    await stopTargets(targets);
  }
}
