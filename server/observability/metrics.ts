// Prometheus metrics (docs/operators.md#metrics): one registry for the process, served as text by
// startMetricsServer on METRICS_PORT, never on the API port. The metric objects are made once, when this
// module is first imported, so any number of apps in one process (tests) count into them and none throws
// "metric already registered"; a test reads differences, not absolute values.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isQueryTimeout } from "../../db/errors.js";
import type { DbObserver, DbWorkKind } from "../../db/observe.js";
import type { PushDeliveryResult } from "../../db/schema/delivery-statuses.js";
import { type AuditAction, auditActions } from "../../db/schema/index.js";
import { entry, RequestSeries } from "./request-series.js";

export const registry = new Registry();

/** http_requests_total and http_request_duration_seconds: every answer, counted without prom-client's per-call label checks. */
export const httpRequestSeries = new RequestSeries(
  { count: "http_requests_total", duration: "http_request_duration_seconds" },
  {
    count: "HTTP requests answered, by method, route template (tRPC: trpc:<procedure>) and status code",
    duration: "Time from a request's arrival to its answer, by method, route template and status code",
  },
);
httpRequestSeries.registerIn(registry);

export const dbQueriesInFlight = new Gauge({
  name: "db_queries_in_flight",
  help: "Statements outside a transaction, and whole transactions, issued and not yet settled (waiting for a pool connection included)",
  labelNames: ["kind"] as const,
  registers: [registry],
});

export const dbQueryDuration = new Histogram({
  name: "db_query_duration_seconds",
  help: "Time from issuing a statement outside a transaction, or a whole transaction, until it settled (waiting for a pool connection included)",
  labelNames: ["kind"] as const,
  registers: [registry],
});

export const dbQueryTimeouts = new Counter({
  name: "db_query_timeouts_total",
  help: "Statements outside a transaction, and whole transactions, that failed for want of an answer in time (DB_QUERY_TIMEOUT_SECONDS; the connection was discarded)",
  labelNames: ["kind"] as const,
  registers: [registry],
});

export const notificationStreamsOpen = new Gauge({
  name: "notification_streams_open",
  help: "Live unread-count streams open on this instance",
  registers: [registry],
});

/**
 * What the push queue holds (server/push/delivery-queue.ts): each instance's queue reads it from the shared
 * database every few seconds, never at scrape time (a scrape must not wait for the database).
 */
export const pushQueueDepth = new Gauge({
  name: "push_queue_depth",
  help: "Push deliveries queued (waiting for their first attempt or a retry), on the shared database",
  registers: [registry],
});

export const pushQueueOldest = new Gauge({
  name: "push_queue_oldest_seconds",
  help: "Age of the oldest queued push delivery, in seconds (0 when none)",
  registers: [registry],
});

export const ofrepStreamsOpen = new Gauge({
  name: "ofrep_streams_open",
  help: "OFREP event streams (flag change notifications) open on this instance",
  registers: [registry],
});

/** Why an OFREP request was refused (docs/platform.md#when-a-readers-key-is-refused). */
export const OFREP_REFUSAL_REASONS = [
  "missing_key",
  "unknown_key",
  "expired",
  "revoked",
  "wrong_scope",
  "rate_limited",
  "invalid_stream_url",
] as const;
export type OfrepRefusalReason = (typeof OFREP_REFUSAL_REASONS)[number];

/**
 * OFREP requests refused before any evaluation: a reader's SDK shows its user only a GENERAL error with no
 * message, so this is where a misconfigured reader shows up. Every reason is exported from the start, at 0.
 */
export const ofrepRefusals = new Counter({
  name: "ofrep_refusals_total",
  help: "OFREP requests refused, by reason: missing_key, unknown_key, expired, revoked, wrong_scope (401/403), rate_limited (429), invalid_stream_url (an event stream URL expired or of a revoked key, 401)",
  labelNames: ["reason"] as const,
  registers: [registry],
});
for (const reason of OFREP_REFUSAL_REASONS) ofrepRefusals.inc({ reason }, 0);

export const dbListenReconnects = new Counter({
  name: "db_listen_reconnects_total",
  help: "Times this instance listened again on a NOTIFY channel after its LISTEN connection was lost (each time, what the channel feeds is read afresh; the re-listens of one reconnection count once)",
  labelNames: ["channel"] as const,
  registers: [registry],
});

/** The change outbox's relay (db/outbox-relay.ts, docs/scaling.md "The change outbox"). */
export const changeRelayOwner = new Gauge({
  name: "change_relay_owner",
  help: "1 while this instance is the one relaying the change outbox of its database (exactly one instance should be)",
  registers: [registry],
});

export const changeOutboxLag = new Gauge({
  name: "change_outbox_lag_seconds",
  help: "Age of the oldest change not yet announced to listeners, as this instance last saw it (0 when none)",
  registers: [registry],
});

export const changeRelayBatchRows = new Histogram({
  name: "change_relay_batch_rows",
  help: "Outbox rows (one per changing statement) announced together by one relay statement",
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
  registers: [registry],
});

export const changeRelayAnnounced = new Counter({
  name: "change_relay_announced_total",
  help: "Changed items (users, sessions, keys, flag ranges) announced by this instance's relay, and the NOTIFYs that carried them",
  labelNames: ["kind"] as const,
  registers: [registry],
});

export type MemoryReadKind = "pro_status" | "session" | "api_key" | "unread_count";
type MemoryReadSource = "memory" | "database";

/**
 * memory_reads_total's counts since the last scrape. Every hot read is counted, and a prom-client inc checks
 * and hashes its labels each time (~1 % of an OFREP evaluation's CPU, issue AE): the counter adds these at
 * scrape instead.
 */
const memoryReadsSinceScrape = new Map<MemoryReadKind, Record<MemoryReadSource, number>>();

/** A hot read answered from this instance's memory, or from the database while memory could not vouch for itself. */
export function countMemoryRead(kind: MemoryReadKind, source: MemoryReadSource): void {
  entry(memoryReadsSinceScrape, kind, () => ({ memory: 0, database: 0 }))[source]++;
}

/** Hot reads by where they were answered from (server/memory/): `memory` while the instance vouches for it. */
export const memoryReads = new Counter({
  name: "memory_reads_total",
  help: "Hot reads (a pro's status, a session, an API key) answered from this instance's memory, or from the database while memory could not vouch for itself",
  labelNames: ["kind", "source"] as const,
  registers: [registry],
  collect() {
    for (const [kind, counts] of memoryReadsSinceScrape) {
      for (const source of ["memory", "database"] as const) {
        if (counts[source] > 0) this.inc({ kind, source }, counts[source]);
        counts[source] = 0;
      }
    }
  },
});

let heartbeatAgeMs: () => number = () => Number.POSITIVE_INFINITY;
/** Where memory_heartbeat_age_seconds is read from at scrape time: this instance's memory feed. */
export const reportHeartbeatAge = (ageMs: () => number) => {
  heartbeatAgeMs = ageMs;
};

/** Age of the newest heartbeat this instance heard (server/memory/feed.ts), read at scrape time. */
export const memoryHeartbeatAge = new Gauge({
  name: "memory_heartbeat_age_seconds",
  help: "Seconds since the newest heartbeat this instance heard through the change announcements was sent; memory is served only while it is under 0.5",
  registers: [registry],
  collect() {
    this.set(Math.min(heartbeatAgeMs(), 1e9) / 1000);
  },
});

export const pushDeliveries = new Counter({
  name: "push_deliveries_total",
  help: "Web Push deliveries attempted, by result",
  labelNames: ["result"] as const,
  registers: [registry],
});

/** The push funnel (docs/api.md#delivery-receipts): each delivery counted once per stage it reaches. */
export const pushFunnel = new Counter({
  name: "push_funnel_total",
  help: "Push deliveries by the stage they reached: queued, accepted (by the push service), displayed, clicked, or superseded (collapsed unsent)",
  labelNames: ["stage"] as const,
  registers: [registry],
});
export type PushFunnelStage = "queued" | "accepted" | "displayed" | "clicked" | "superseded";

export const auditEventsRecorded = new Counter({
  name: "audit_events_total",
  help: "Audit events committed, by action",
  labelNames: ["action"] as const,
  registers: [registry],
});

// Every known label value from the start: a series that appears only at its first event hides that event
// from rate() and increase().
const dbWorkKinds: readonly DbWorkKind[] = ["statement", "transaction"];
const pushResults: readonly PushDeliveryResult[] = ["delivered", "gone", "failed", "address_not_allowed"];
for (const kind of dbWorkKinds) {
  dbQueriesInFlight.set({ kind }, 0);
  dbQueryDuration.zero({ kind });
  dbQueryTimeouts.inc({ kind }, 0);
}
for (const result of pushResults) pushDeliveries.inc({ result }, 0);
for (const stage of ["queued", "accepted", "displayed", "clicked", "superseded"] as const) pushFunnel.inc({ stage }, 0);
for (const action of auditActions) auditEventsRecorded.inc({ action }, 0);

/**
 * A live stream opened: call the returned function when it closes (calling it again does nothing), e.g.
 * `request.raw.once("close", streamOpened())`.
 */
export function streamOpened(gauge: Gauge = notificationStreamsOpen): () => void {
  gauge.inc();
  let open = true;
  return () => {
    if (open) gauge.dec();
    open = false;
  };
}

export const countPushDelivery = (result: PushDeliveryResult) => pushDeliveries.inc({ result });
export const countPushStage = (stage: PushFunnelStage, by = 1) => {
  if (by > 0) pushFunnel.inc({ stage }, by);
};
export const countAuditEvent = (action: AuditAction) => auditEventsRecorded.inc({ action });

/** The database layer's observer (db/observe.ts): work in flight and how long it took. */
export const dbMetrics: DbObserver = (kind) => {
  dbQueriesInFlight.inc({ kind });
  const stopTimer = dbQueryDuration.startTimer({ kind });
  return (error) => {
    dbQueriesInFlight.dec({ kind });
    stopTimer();
    if (error !== undefined && isQueryTimeout(error)) dbQueryTimeouts.inc({ kind });
  };
};

/** The route label of requests no route matched (404s, malformed URLs): one series, whatever the URL. */
export const UNMATCHED_ROUTE = "unmatched";

/** The tRPC door's route template and each procedure's label, made once: a label built per request cost a copy and a hash of it. */
export type TrpcRoutes = { route: string; labels: ReadonlyMap<string, string> };

export const trpcRoutes = (route: string, procedures: Iterable<string>): TrpcRoutes => ({
  route,
  labels: new Map([...procedures].map((path) => [path, `trpc:${path}`])),
});

/**
 * The `route` label of a request: its route's template, never the raw URL. A tRPC call is labelled by its
 * procedure, `trpc:<path>`, when that is one of the door's procedures; a batch of several is `trpc:batch`
 * and a name no procedure has is `trpc:unknown`, so no caller can make up new series.
 */
export function routeLabel(template: string | undefined, params: unknown, trpc: TrpcRoutes): string {
  if (template === undefined) return UNMATCHED_ROUTE;
  if (template !== trpc.route) return template;
  const path = (params as { path?: unknown } | undefined)?.path;
  if (typeof path !== "string") return "trpc:unknown";
  if (path.includes(",")) return "trpc:batch";
  return trpc.labels.get(path) ?? "trpc:unknown";
}

let defaultMetricsOn = false;

function turnOnDefaultMetrics(): void {
  if (defaultMetricsOn) return;
  collectDefaultMetrics({ register: registry });
  defaultMetricsOn = true;
}

export type MetricsServer = { url: string; close(): Promise<void> };
/** Where a scrape's text comes from: this process's registry, or (a cluster's primary) every worker's. */
export type MetricsSource = { text(): Promise<string>; contentType: string };

/**
 * A cluster worker (CLUSTER_WORKERS, server/cluster.ts): its process metrics on, and its registry answering
 * the primary's scrapes over IPC. Constructing prom-client's AggregatorRegistry is what adds that listener.
 */
export function answerClusterScrapes(): void {
  turnOnDefaultMetrics();
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

/** A cluster primary's scrape: every worker's registry, counters and histograms summed (prom-client's aggregation). */
export function clusterMetricsSource(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { text: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
}

/**
 * A small HTTP listener of its own answering `GET /metrics` with the registry's text (or `source`'s), and 404
 * to anything else. Starting it on the registry also turns on the process and Node.js metrics (once per process).
 */
export async function startMetricsServer(options: { port: number; host: string; source?: MetricsSource }): Promise<MetricsServer> {
  if (!options.source) turnOnDefaultMetrics();
  const source = options.source ?? { text: () => registry.metrics(), contentType: registry.contentType };
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") return void res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
    if (req.method !== "GET" && req.method !== "HEAD") {
      return void res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("Method not allowed\n");
    }
    source.text().then(
      (text) => res.writeHead(200, { "content-type": source.contentType }).end(req.method === "HEAD" ? undefined : text),
      (err: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // A scraper's idle keep-alive connection would hold the close open.
        server.closeAllConnections();
      }),
  };
}
