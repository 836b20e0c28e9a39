// Where the console's links go. A pro's address in the console (issue K.5), and a notification's url in the
// inbox (issue AD.3).
import { isNotificationUrl } from "../../server/notifications/urls.js";

// A pro's address in the console: /console/pros/<id>, the id one path segment, escaped once with
// encodeURIComponent on the way out and unescaped once on the way in (issue K.5). wouter's route params
// cannot carry it: wouter reads the path through decodeURI, which keeps the escapes of URL-special
// characters (%3D, %2F, %3F, %23, %26, %2B) but turns %25 back into %, so `pro=1` came back as `pro%3D1`
// and `=` could no longer be told from a literal `%3D`. The ids `.` and `..` cannot be a segment at all
// (the browser resolves them, escaped or not), so they go in the query: /console/pros?id=..

/** Segments the URL parser resolves away (encodeURIComponent leaves dots alone; %2E is resolved too). */
const DOT_SEGMENT = /^\.\.?$/;

/** The console path (below its /console base) that opens this pro. */
export function proPath(proId: string): string {
  return DOT_SEGMENT.test(proId) ? `/pros?${new URLSearchParams({ id: proId })}` : `/pros/${encodeURIComponent(proId)}`;
}

/**
 * The pro id of a pro's address as the browser holds it (location.pathname and location.search, still
 * escaped), or undefined for the lookup without one. A path typed by hand with a stray `%`
 * (`/console/pros/50%`) is taken as it is.
 */
export function proIdFromLocation(pathname: string, search = ""): string | undefined {
  const segment = /\/pros\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (segment === undefined) return new URLSearchParams(search).get("id") || undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Where a notification's url leads from the inbox, or null to show it as text. An https: URL leads to
 * itself. A path is the platform app's (docs/api.md#notification-links), so it is joined to APP_BASE_URL:
 * resolved against the console's own origin it opened the service's JSON 404. Unset, no app to link into.
 */
export function notificationHref(url: string, appBaseUrl: string | null): string | null {
  if (!isNotificationUrl(url)) return null;
  if (!url.startsWith("/")) return url;
  return appBaseUrl ? new URL(url, appBaseUrl).href : null;
}
