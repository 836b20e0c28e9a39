// ADMIN_EMAILS (docs/operators.md#who-may-become-an-admin): several first admins from the deployment's
// configuration, each made sure of at start-up like ADMIN_EMAIL, with ADMIN_PASSWORD as its first password.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";

const PASSWORD = "twelve-chars-or-more";

describe("ADMIN_EMAILS", () => {
  it("lists ADMIN_EMAIL first, then each of ADMIN_EMAILS once, lower-cased, naming the setting", () => {
    const config = loadConfig({
      ADMIN_EMAIL: "Ops@Example.com",
      ADMIN_EMAILS: "b@example.com, OPS@example.com ,c@example.com",
      ADMIN_PASSWORD: PASSWORD,
    });
    expect(config.bootstrapAdmins.map((a) => [a.email, a.setting])).toEqual([
      ["ops@example.com", "ADMIN_EMAIL"],
      ["b@example.com", "ADMIN_EMAILS"],
      ["c@example.com", "ADMIN_EMAILS"],
    ]);
    expect(config.bootstrapAdmins.every((a) => a.password === PASSWORD)).toBe(true);
  });

  it("names each ADMIN_EMAILS admin by its address, so the Users list tells them apart; ADMIN_EMAIL keeps ADMIN_NAME or Admin", () => {
    const names = (env: Record<string, string>) => loadConfig({ ADMIN_PASSWORD: PASSWORD, ...env }).bootstrapAdmins.map((a) => a.name);
    expect(names({ ADMIN_EMAIL: "ops@example.com", ADMIN_EMAILS: "B@example.com,c@example.com" })).toEqual([
      "Admin",
      "b@example.com",
      "c@example.com",
    ]);
    expect(names({ ADMIN_EMAIL: "ops@example.com", ADMIN_NAME: "Ops", ADMIN_EMAILS: "b@example.com" })).toEqual(["Ops", "b@example.com"]);
  });

  it("works without ADMIN_EMAIL; none when neither is set", () => {
    expect(loadConfig({ ADMIN_EMAILS: "a@example.com", ADMIN_PASSWORD: PASSWORD }).bootstrapAdmins.map((a) => a.email)).toEqual([
      "a@example.com",
    ]);
    expect(loadConfig({}).bootstrapAdmins).toEqual([]);
  });

  it("stops start-up with one line for a bad address or a missing password", () => {
    expect(() => loadConfig({ ADMIN_EMAILS: "a@example.com,not-an-address", ADMIN_PASSWORD: PASSWORD })).toThrow(/^ADMIN_EMAILS/);
    expect(() => loadConfig({ ADMIN_EMAILS: "a@example.com" })).toThrow(
      new ConfigError("ADMIN_PASSWORD: required when ADMIN_EMAILS is set"),
    );
  });
});
