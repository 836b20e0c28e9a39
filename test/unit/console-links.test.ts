// A pro's address in the console (console/src/links.ts): every id goes out as one path segment (`.` and
// `..` in the query) and comes back exactly, which wouter's own params (decodeURI) did not do for
// = ? # / & + (issue K.5).
import { describe, expect, test } from "vitest";
import { proIdFromLocation, proPath } from "../../console/src/links.js";

const IDS = ["pro-0001", "pro=1", "a?b#c", "x/y", "50%", "a&b+c d", "%3D", "%41b", "%", "é ü/ñ", "a;b,c:d@e$f", "😀", "...", ".a"];

/** The address as the browser holds it once the console navigates to the path (below its /console base). */
const inBrowser = (path: string) => new URL(`/console${path}`, "http://console.test");

describe("proPath and proIdFromLocation", () => {
  test.each(IDS)("%j goes out as one escaped path segment and comes back as is", (proId) => {
    const path = proPath(proId);
    expect(path).toBe(`/pros/${encodeURIComponent(proId)}`);
    const url = inBrowser(path);
    expect(url.pathname).toBe(`/console${path}`);
    expect(url.search).toBe("");
    expect(proIdFromLocation(url.pathname, url.search)).toBe(proId);
  });

  test.each([".", ".."])("%j, which the browser would resolve away as a segment, goes in the query", (proId) => {
    const url = inBrowser(proPath(proId));
    expect(url.pathname).toBe("/console/pros");
    expect(proIdFromLocation(url.pathname, url.search)).toBe(proId);
  });

  test("= and a literal %3D are different pros with different addresses", () => {
    expect(proPath("=")).not.toBe(proPath("%3D"));
    expect(proIdFromLocation(`/console${proPath("%3D")}`)).toBe("%3D");
    expect(proIdFromLocation(`/console${proPath("=")}`)).toBe("=");
  });

  test("an address typed by hand: unescaped characters are taken as they are, a stray % too", () => {
    expect(proIdFromLocation("/console/pros/pro=1")).toBe("pro=1");
    expect(proIdFromLocation("/console/pros/50%")).toBe("50%");
    expect(proIdFromLocation("/console/pros/pro-1/")).toBe("pro-1");
  });

  test("no id: the lookup itself", () => {
    expect(proIdFromLocation("/console/pros", "")).toBeUndefined();
    expect(proIdFromLocation("/console/pros/", "")).toBeUndefined();
    expect(proIdFromLocation("/console/pros", "?id=")).toBeUndefined();
  });
});
