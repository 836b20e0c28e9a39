// APP_BASE_URL (CONTRACT part five, "The app"): the platform app's origin, which a notification's path is
// relative to. Absolute https:, or http: on loopback only; anything else stops start-up on one line naming it.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

describe("APP_BASE_URL", () => {
  it("is unset by default: paths in notifications have no app to be links into", () => {
    expect(loadConfig({}).appBaseUrl).toBeNull();
  });

  it("takes an https: origin, or http: on loopback, and keeps the origin alone", () => {
    for (const [value, origin] of [
      ["https://app.example.com", "https://app.example.com"],
      ["https://app.example.com/", "https://app.example.com"],
      ["https://APP.example.com:8443", "https://app.example.com:8443"],
      ["http://localhost:5173", "http://localhost:5173"],
      ["http://127.0.0.1:8080/", "http://127.0.0.1:8080"],
      ["http://[::1]:3001", "http://[::1]:3001"],
    ]) {
      expect({ value, origin: loadConfig({ APP_BASE_URL: value }).appBaseUrl }).toEqual({ value, origin });
    }
  });

  it("refuses http: off loopback, other schemes, a path, a query, credentials or no URL, on one line naming it", () => {
    for (const value of [
      "http://app.example.com",
      "ftp://app.example.com",
      "javascript:alert(1)",
      "https://app.example.com/app",
      "https://app.example.com/?x=1",
      "https://app.example.com/#x",
      "https://user:pw@app.example.com",
      "app.example.com",
      "/leads",
    ]) {
      const error = configErrorOf({ APP_BASE_URL: value });
      expect({ value, lines: error.split("\n").length }).toEqual({ value, lines: 1 });
      expect(error).toMatch(/^APP_BASE_URL: must be an https: origin/);
    }
  });
});
