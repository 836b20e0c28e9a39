// Where a notification's url leads from the console's inbox (console/src/links.ts, issue AD.3): an https: URL
// as it is; a path of the app against APP_BASE_URL, never against the console's own origin (which answered
// the service's JSON 404); with APP_BASE_URL unset, or a url the service's rule refuses, no link at all.
import { describe, expect, test } from "vitest";
import { notificationHref } from "../../console/src/links.js";

const APP = "https://app.example.com";

describe("notificationHref", () => {
  test("an absolute https: URL is its own link, whatever APP_BASE_URL says", () => {
    expect(notificationHref("https://other.example/inbox/48213", APP)).toBe("https://other.example/inbox/48213");
    expect(notificationHref("https://other.example/inbox/48213", null)).toBe("https://other.example/inbox/48213");
  });

  test("a path of the app is joined to APP_BASE_URL, its query and fragment kept", () => {
    expect(notificationHref("/leads/7", APP)).toBe("https://app.example.com/leads/7");
    expect(notificationHref("/leads/7?tab=notes#n2", APP)).toBe("https://app.example.com/leads/7?tab=notes#n2");
    expect(notificationHref("/", "http://localhost:5173")).toBe("http://localhost:5173/");
    // Dot segments resolve inside the app's origin; they never climb out of it.
    expect(notificationHref("/a/../../leads", APP)).toBe("https://app.example.com/leads");
  });

  test("a path without APP_BASE_URL is no link: the console's origin is not the app's", () => {
    expect(notificationHref("/leads/7", null)).toBeNull();
  });

  test("a url the service's rule refuses is no link, with or without APP_BASE_URL", () => {
    for (const url of ["javascript:alert(1)", "//evil.example/x", "/\\evil.example", "http://app.example.com/x", "leads/7", "/\tx"]) {
      expect({ url, href: notificationHref(url, APP) }).toEqual({ url, href: null });
      expect({ url, href: notificationHref(url, null) }).toEqual({ url, href: null });
    }
  });
});
