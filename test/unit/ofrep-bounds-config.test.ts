// CONTRACT part four, "Bounds": the OFREP settings and their defaults (docs/operators.md#configuration).
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";

describe("OFREP bounds in the configuration", () => {
  it("defaults to 32 streams per stream address, 10000 per key and 30000 requests per key and minute", () => {
    expect(loadConfig({})).toMatchObject({ ofrepStreamsPerTarget: 32, ofrepStreamsPerKey: 10_000, ofrepRequestsPerMinute: 30_000 });
  });

  it("takes other values, and refuses what is not a positive whole number, naming the setting", () => {
    expect(loadConfig({ OFREP_STREAMS_PER_TARGET: "4", OFREP_STREAMS_PER_KEY: "50" })).toMatchObject({
      ofrepStreamsPerTarget: 4,
      ofrepStreamsPerKey: 50,
    });
    for (const [name, value] of [
      ["OFREP_STREAMS_PER_TARGET", "0"],
      ["OFREP_STREAMS_PER_KEY", "-3"],
      ["OFREP_STREAMS_PER_KEY", "many"],
      ["OFREP_REQUESTS_PER_MINUTE", "1.5"],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });
});
