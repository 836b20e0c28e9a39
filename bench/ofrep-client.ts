// The bench as an OFREP client of the product (server/ofrep/routes.ts): bulk evaluations for the ETags the
// ofrep-bulk-304 scenario sends back and for the event stream URLs of the ofrep-streams measurement.
import { mapWithConcurrency } from "../server/push/concurrency.js";

export type BulkAnswer = { proId: string; etag: string; url: string; flags: unknown[] };

/** One bulk evaluation for a pro: its ETag header and the event stream URL the answer hands out. */
export async function bulkEvaluation(origin: string, apiKey: string, proId: string): Promise<BulkAnswer> {
  const response = await fetch(`${origin}/ofrep/v1/evaluate/flags`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ context: { targetingKey: proId } }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  const etag = response.headers.get("etag");
  if (response.status !== 200 || !etag)
    throw new Error(`bulk evaluation of ${proId}: HTTP ${response.status}, ETag ${etag}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { flags: unknown[]; eventStreams?: { type: string; url: string }[] };
  const url = body.eventStreams?.find((s) => s.type === "sse")?.url;
  if (!url) throw new Error(`bulk evaluation of ${proId} named no SSE event stream: ${text.slice(0, 300)}`);
  return { proId, etag, url, flags: body.flags };
}

/** Every pro's bulk evaluation, `concurrency` at a time, in the order of `proIds`. */
export const bulkEvaluations = (origin: string, apiKey: string, proIds: readonly string[], concurrency = 10) =>
  mapWithConcurrency(proIds, concurrency, (proId) => bulkEvaluation(origin, apiKey, proId));
