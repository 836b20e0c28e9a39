// One load run: autocannon with a fixed number of connections for a fixed time, after a discarded warm-up.
import { readFileSync } from "node:fs";
import autocannon, { type RawRequest, type Result } from "autocannon";

/** One request of a scenario; `next` varies it per request (a rotating id), else it is sent as is. */
export type RequestPlan = {
  method: "GET" | "POST" | "PATCH";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Returns the path (and body, and headers besides the plan's) of the i-th request, for scenarios that rotate
   * over ids. `context` is autocannon's per-connection object, handed to `onResponse` with this request's answer.
   */
  next?: (i: number, context: Record<string, unknown>) => { path: string; body?: string; headers?: Record<string, string> };
  /** Called with each answer's status and the context its request's `next` was given (a connection sends one at a time). */
  onResponse?: (status: number, context: Record<string, unknown>) => void;
  /** The status every answer must have (a 304 of a conditional request); any 2xx when absent. */
  expectStatus?: number;
};

export type LoadResult = {
  rps: number;
  p50: number;
  p99: number;
  /** Connection errors, timeouts and answers of another status than expected (non-2xx by default): anything but a success. */
  errors: number;
  requests: number;
  /** CPU time the server process used per request (user + system, Linux /proc), null when unknown. */
  cpuMsPerRequest: number | null;
  /**
   * The part of it spent in the kernel (system time): reading and writing the sockets, and waking the load
   * generator on the other core. Beside the user time it tells JavaScript work from the machine's.
   */
  kernelMsPerRequest: number | null;
  /** CPU time the load generator (autocannon, in this process) used per request. */
  clientCpuMsPerRequest: number;
  /**
   * Share of the machine's CPU time that was busy during the run (all cores, Linux /proc/stat), null when
   * unknown. Near 1, the run measured the machine, server and load generator together, not the server alone.
   */
  machineBusy: number | null;
};

/** CPU milliseconds a process has used so far, in user code and in the kernel. */
type CpuMs = { user: number; kernel: number };

/** User and system CPU milliseconds of a process so far, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): CpuMs | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at state (field 3).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { user: Number(fields[11]) * 10, kernel: Number(fields[12]) * 10 };
  } catch {
    return null;
  }
}

/** Busy and total CPU time of the whole machine so far (Linux /proc/stat, all cores), null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync("/proc/stat", "utf8")
      .split("\n", 1)[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number) as number[];
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return null;
  }
}

function requestsFor(plan: RequestPlan) {
  if (!plan.next) return undefined;
  let i = 0;
  const next = plan.next;
  const onResponse = plan.onResponse;
  return [
    {
      ...(onResponse
        ? { onResponse: (status: number, _body: string, context: Record<string, unknown>) => onResponse(status, context) }
        : {}),
      setupRequest: (request: RawRequest, context: Record<string, unknown>): RawRequest => {
        const { path, body, headers } = next(i++, context);
        return {
          ...request,
          path,
          ...(body === undefined ? {} : { body }),
          ...(headers === undefined ? {} : { headers: { ...request.headers, ...headers } }),
        };
      },
    },
  ];
}

async function cannon(origin: string, plan: RequestPlan, connections: number, duration: number, rate?: number): Promise<Result> {
  const requests = requestsFor(plan);
  return autocannon({
    url: origin + plan.path,
    connections,
    duration,
    ...(rate ? { overallRate: rate } : {}),
    timeout: 10,
    method: plan.method,
    headers: plan.headers,
    ...(plan.body === undefined ? {} : { body: plan.body }),
    ...(requests ? { requests } : {}),
  });
}

export async function runLoad(
  origin: string,
  plan: RequestPlan,
  options: { connections: number; duration: number; warmup: number; pid?: number; rate?: number },
): Promise<LoadResult> {
  if (options.warmup > 0) await cannon(origin, plan, options.connections, options.warmup, options.rate);
  const cpuBefore = cpuMs(options.pid);
  const [clientBefore, machineBefore] = [process.cpuUsage(), machineCpu()];
  const result = await cannon(origin, plan, options.connections, options.duration, options.rate);
  const cpuAfter = cpuMs(options.pid);
  const [client, machineAfter] = [process.cpuUsage(clientBefore), machineCpu()];
  const total = result.requests.total;
  const perRequest = (used: (after: CpuMs, before: CpuMs) => number) =>
    cpuBefore === null || cpuAfter === null || total === 0 ? null : used(cpuAfter, cpuBefore) / total;
  const unexpected =
    plan.expectStatus === undefined
      ? result.non2xx
      : Object.entries(result.statusCodeStats).reduce((n, [code, { count }]) => (Number(code) === plan.expectStatus ? n : n + count), 0);
  return {
    cpuMsPerRequest: perRequest((a, b) => a.user + a.kernel - b.user - b.kernel),
    kernelMsPerRequest: perRequest((a, b) => a.kernel - b.kernel),
    clientCpuMsPerRequest: total === 0 ? 0 : (client.user + client.system) / 1000 / total,
    machineBusy:
      machineBefore && machineAfter && machineAfter.total > machineBefore.total
        ? (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)
        : null,
    rps: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    requests: total,
  };
}

/** Sends the plan's first request once; returns the status and the parsed JSON body. */
export async function probe(origin: string, plan: RequestPlan): Promise<{ status: number; body: unknown }> {
  const first: ReturnType<NonNullable<RequestPlan["next"]>> = plan.next ? plan.next(0, {}) : { path: plan.path, body: plan.body };
  const response = await fetch(origin + first.path, {
    method: plan.method,
    headers: { ...plan.headers, ...first.headers },
    ...(first.body === undefined ? {} : { body: first.body }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the check will say so
  }
  return { status: response.status, body };
}
