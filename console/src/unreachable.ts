// The service cannot be reached (it is down, restarting, or the network is): fetch() itself failed, or a
// proxy in front answered for it. Said in words instead of the browser's "Failed to fetch" (issue AD.2).
import { TRPCClientError } from "@trpc/client";

/** A gateway's answer while the service behind it is away (no tRPC error body: the service did not answer). */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

export const UNREACHABLE_READ = "The service cannot be reached. Check your connection; this page retries on its own.";
export const UNREACHABLE_WRITE =
  "The service cannot be reached. Check your connection, then try again: the console does not resend changes on its own.";

/** fetch() rejects with a TypeError when there is no answer ("Failed to fetch", "Load failed", …). */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof TypeError) return true;
  if (!(err instanceof TRPCClientError)) return false;
  if (err.cause instanceof TypeError) return true;
  const status = (err.meta?.response as { status?: number } | undefined)?.status;
  return err.data === undefined && status !== undefined && GATEWAY_STATUSES.has(status);
}
