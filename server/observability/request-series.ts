// http_requests_total and http_request_duration_seconds, counted in plain numbers. Every answer is counted
// in both, and prom-client's Counter.inc and Histogram.observe check and hash the labels on every call: ~4 %
// of an OFREP evaluation's CPU (issue AE). Here a request costs three Map lookups and a few additions; the
// labels are turned into prom-client's values only when the registry is scraped. Both objects follow
// prom-client's metric interface (get/reset), so the registry, the cluster's aggregation and the text format
// treat them as their own. They can go if prom-client's observe gets a cheap path for known labels.
import type { Registry } from "prom-client";

/** prom-client's default buckets, in seconds, which http_request_duration_seconds has always had. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = { method: string; route: string; status_code: string };
type Series = { labels: Labels; count: number; sum: number /** per bucket, not cumulative; the last is +Inf */; buckets: number[] };
type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string; sharedLabels?: Labels };

/** The two metrics, sharing one table of series by method, route label and status code. */
export class RequestSeries {
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();
  /** Every series in the order it first appeared, the order prom-client lists them in. */
  private ordered: Series[] = [];

  constructor(
    private readonly names: { count: string; duration: string },
    private readonly help: { count: string; duration: string },
  ) {}

  /** One answered request: `seconds` from its arrival to its answer. */
  record(method: string, route: string, statusCode: number, seconds: number): void {
    const byRoute = entry(this.series, method, () => new Map<string, Map<number, Series>>());
    const byStatus = entry(byRoute, route, () => new Map<number, Series>());
    const series = entry(byStatus, statusCode, () => {
      const made = {
        labels: { method, route, status_code: String(statusCode) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
      };
      this.ordered.push(made);
      return made;
    });
    series.count++;
    series.sum += seconds;
    // A value on a bound counts in that bucket (`le`: less than or equal), as prom-client counts it.
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  /** Registers both metrics in `registry` under their names. */
  registerIn(registry: Registry): void {
    const reset = () => {
      this.series.clear();
      this.ordered = [];
    };
    const counter = {
      name: this.names.count,
      help: this.help.count,
      type: "counter",
      aggregator: "sum",
      get: async () => ({ ...info(counter), values: this.ordered.map((s): MetricValue => ({ labels: { ...s.labels }, value: s.count })) }),
      reset,
    };
    const histogram = {
      name: this.names.duration,
      help: this.help.duration,
      type: "histogram",
      aggregator: "sum",
      // The text format, as prom-client writes a histogram: the bucket's `le` first, the series' labels shared.
      getForPromString: async () => ({ ...info(histogram), values: this.ordered.flatMap((s) => this.histogramValues(s)) }),
      // The JSON form (the cluster's aggregation reads it): every value with all its labels.
      get: async () => ({
        ...info(histogram),
        values: this.ordered.flatMap((s) =>
          this.histogramValues(s).map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })),
        ),
      }),
      reset,
    };
    registry.registerMetric(counter as never);
    registry.registerMetric(histogram as never);
  }

  private histogramValues(s: Series): MetricValue[] {
    const bucket = `${this.names.duration}_bucket`;
    let cumulative = 0;
    const values: MetricValue[] = DURATION_BUCKETS.map((le, i) => {
      cumulative += s.buckets[i]!;
      return { labels: { le }, value: cumulative, metricName: bucket, sharedLabels: s.labels };
    });
    values.push(
      { labels: { le: "+Inf" }, value: s.count, metricName: bucket, sharedLabels: s.labels },
      { labels: {}, value: s.sum, metricName: `${this.names.duration}_sum`, sharedLabels: s.labels },
      { labels: {}, value: s.count, metricName: `${this.names.duration}_count`, sharedLabels: s.labels },
    );
    return values;
  }
}

/** The value of `key` in `map`, made and added when absent. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

const info = (m: { name: string; help: string; type: string; aggregator: string }) => ({
  name: m.name,
  help: m.help,
  type: m.type,
  aggregator: m.aggregator,
});
