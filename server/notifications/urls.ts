// Which links a notification may carry (CONTRACT.md part four, docs/api.md#limits): a pure rule that imports
// nothing, so the service's inputs (producer events, admin test endpoints) and the operator console's links
// (console/src/views/Inbox.tsx) read one rule. A `javascript:` or `data:` URL would run in whoever clicks it.

/** What the rule says when a URL breaks it, after the field's name. */
export const NOTIFICATION_URL_RULE = "must be an absolute https: URL or a path starting with / (not // or /\\)";

/**
 * Control characters and white space: a browser drops tabs and newlines from a URL before reading it, so
 * "/\t/evil.example" would become the scheme-relative "//evil.example". A URL carries them percent-encoded.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007F-\u009F\u2028\u2029]/;

/** A stand-in origin: a path is safe when it stays on the app's own origin, whichever that is. */
const APP = "https://app.invalid";

/**
 * True for an absolute `https:` URL with a host, or a path starting with `/` that a browser resolves on the
 * app's own origin (not `//host`, not `/\host`, which browsers read as `//host`).
 */
export function isNotificationUrl(url: string): boolean {
  if (CONTROL_OR_SPACE.test(url)) return false;
  if (url.startsWith("/")) {
    if (url.startsWith("//") || url.startsWith("/\\")) return false;
    try {
      return new URL(url, APP).origin === APP;
    } catch {
      return false;
    }
  }
  // The host follows the two slashes at once: a parser would read "https:///x" as the host "x".
  if (!/^https:\/\/[^/\\]/i.test(url)) return false;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" && parsed.hostname !== "";
  } catch {
    return false;
  }
}
