// Configuration in tests: the one line a bad environment stops start-up with.
import { expect } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";

/** The message loadConfig refuses `env` with; fails the test when it accepts it. */
export const configErrorOf = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
};
