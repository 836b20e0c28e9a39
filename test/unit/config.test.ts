import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

const errorOf = configErrorOf;

describe("loadConfig", () => {
  it("defaults to the embedded database on 127.0.0.1:3000", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      databaseUrl: undefined,
      pgliteDir: ".data/pglite",
      baseUrl: "http://127.0.0.1:3000",
      trustedOrigins: ["http://127.0.0.1:3000"],
      corsOrigins: [],
      vapid: null,
      pushAllowHttpEndpoints: false,
    });
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" }).port).toBe(3000);
  });

  it("parses lists and flags", () => {
    const config = loadConfig({
      PLATFORM_ADMIN_EMAILS: " Ops@Example.com, second@example.com ,",
      TRUSTED_ORIGINS: "https://admin.example.com, http://localhost:5173/",
      CORS_ORIGINS: "https://admin.example.com",
      PUSH_ALLOW_HTTP_ENDPOINTS: "true",
    });
    expect(config.platformAdminEmails).toEqual(["ops@example.com", "second@example.com"]);
    expect(config.trustedOrigins).toEqual(["https://admin.example.com", "http://localhost:5173"]);
    expect(config.corsOrigins).toEqual(["https://admin.example.com"]);
    expect(config.pushAllowHttpEndpoints).toBe(true);
  });

  it("names each bad variable on its own line", () => {
    const message = errorOf({ PORT: "eighty", DATABASE_URL: "not a url", LOG_LEVEL: "loud" });
    const lines = message.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^PORT: /);
    expect(message).toMatch(/^DATABASE_URL: /m);
    expect(message).toMatch(/^LOG_LEVEL: /m);
  });

  it("rejects a non-postgres DATABASE_URL and a bad origin", () => {
    expect(errorOf({ DATABASE_URL: "mysql://localhost/db", BETTER_AUTH_SECRET: "x".repeat(32) })).toMatch(/^DATABASE_URL: /);
    expect(errorOf({ CORS_ORIGINS: "ftp://files.example.com" })).toMatch(/^CORS_ORIGINS: /);
  });

  it("requires BETTER_AUTH_SECRET with DATABASE_URL", () => {
    expect(errorOf({ DATABASE_URL: "postgres://localhost/app" })).toBe("BETTER_AUTH_SECRET: required when DATABASE_URL is set");
    expect(loadConfig({ DATABASE_URL: "postgres://localhost/app", BETTER_AUTH_SECRET: "s".repeat(32) }).databaseUrl).toBe(
      "postgres://localhost/app",
    );
  });

  describe("VAPID keys", () => {
    const keys = webpush.generateVAPIDKeys();
    const other = webpush.generateVAPIDKeys();

    it("accepts a generated pair with a subject", () => {
      const config = loadConfig({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: "mailto:ops@example.com",
      });
      expect(config.vapid).toEqual({ ...keys, subject: "mailto:ops@example.com" });
    });

    it("rejects half a pair, a key that does not parse, a mismatched pair and a bad subject", () => {
      expect(errorOf({ VAPID_PUBLIC_KEY: keys.publicKey })).toMatch(/^VAPID_PRIVATE_KEY: required/);
      expect(errorOf({ VAPID_PUBLIC_KEY: "short", VAPID_PRIVATE_KEY: keys.privateKey })).toMatch(/^VAPID_/);
      expect(errorOf({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: other.privateKey })).toBe(
        "VAPID_PUBLIC_KEY: does not match VAPID_PRIVATE_KEY",
      );
      expect(errorOf({ VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey, VAPID_SUBJECT: "ops" })).toMatch(
        /^VAPID_SUBJECT: /,
      );
    });
  });

  describe("who may become an admin", () => {
    it("grants PLATFORM_ADMIN_EMAILS outside production only, and says so at start-up", () => {
      expect(loadConfig({ PLATFORM_ADMIN_EMAILS: "ops@example.com" })).toMatchObject({
        production: false,
        platformAdminEmails: ["ops@example.com"],
        warnings: [],
      });
      expect(loadConfig({ NODE_ENV: "production", PLATFORM_ADMIN_EMAILS: "ops@example.com" })).toMatchObject({
        production: true,
        platformAdminEmails: [],
        warnings: ["PLATFORM_ADMIN_EMAILS is ignored in production: use ADMIN_EMAIL and ADMIN_PASSWORD"],
      });
    });

    it("reads the bootstrap admin, lower-casing the address and naming it Admin by default", () => {
      expect(loadConfig({}).bootstrapAdmin).toBeNull();
      expect(loadConfig({ ADMIN_EMAIL: "Ops@Example.com", ADMIN_PASSWORD: "twelve-chars" }).bootstrapAdmin).toEqual({
        email: "ops@example.com",
        password: "twelve-chars",
        name: "Admin",
      });
      expect(loadConfig({ ADMIN_EMAIL: "a@b.co", ADMIN_PASSWORD: "twelve-chars", ADMIN_NAME: " Ops " }).bootstrapAdmin?.name).toBe("Ops");
    });

    it.each([
      [{ ADMIN_EMAIL: "ops@example.com" }, "ADMIN_PASSWORD: required when ADMIN_EMAIL is set"],
      [{ ADMIN_PASSWORD: "twelve-chars" }, "ADMIN_EMAIL: required when ADMIN_PASSWORD is set"],
      [{ ADMIN_EMAIL: "not an address", ADMIN_PASSWORD: "twelve-chars" }, "ADMIN_EMAIL: must be an e-mail address"],
      [{ ADMIN_EMAIL: "ops@example.com", ADMIN_PASSWORD: "eleven-char" }, "ADMIN_PASSWORD: must be at least 12 characters"],
      [{ SIGN_UP: "maybe" }, "SIGN_UP: must be open or closed"],
      [{ PUSH_ALLOW_PRIVATE_ENDPOINTS: "yes" }, /^PUSH_ALLOW_PRIVATE_ENDPOINTS: /],
    ])("refuses %j with one line naming the variable", (env, message) => {
      expect(errorOf(env)).toMatch(typeof message === "string" ? new RegExp(`^${message}$`) : message);
    });

    it("reads SIGN_UP (open by default) and PUSH_ALLOW_PRIVATE_ENDPOINTS (off by default)", () => {
      expect(loadConfig({})).toMatchObject({ signUp: "open", pushAllowPrivateEndpoints: false });
      expect(loadConfig({ SIGN_UP: "closed", PUSH_ALLOW_PRIVATE_ENDPOINTS: "true" })).toMatchObject({
        signUp: "closed",
        pushAllowPrivateEndpoints: true,
      });
    });
  });

  describe("METRICS_PORT", () => {
    it("is off unless set, and read like PORT when it is", () => {
      expect(loadConfig({}).metricsPort).toBeNull();
      expect(loadConfig({ METRICS_PORT: "" }).metricsPort).toBeNull();
      expect(loadConfig({ METRICS_PORT: "9464" }).metricsPort).toBe(9464);
      // 0: any free port, as with PORT.
      expect(loadConfig({ PORT: "0", METRICS_PORT: "0" }).metricsPort).toBe(0);
    });

    it.each([
      [{ METRICS_PORT: "metrics" }, /^METRICS_PORT: /],
      [{ METRICS_PORT: "70000" }, /^METRICS_PORT: /],
      [{ METRICS_PORT: "-1" }, /^METRICS_PORT: /],
      [{ METRICS_PORT: "3000" }, /^METRICS_PORT: must differ from PORT/],
      [{ PORT: "8080", METRICS_PORT: "8080" }, /^METRICS_PORT: must differ from PORT/],
    ])("refuses %j with one line naming it", (env, message) => {
      const error = errorOf(env);
      expect(error.split("\n")).toHaveLength(1);
      expect(error).toMatch(message);
    });
  });
  describe("TRUST_PROXY", () => {
    it("is off by default, and takes a hop count or a list of proxy addresses and CIDR ranges", () => {
      expect(loadConfig({}).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toBe(false);
      expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
      expect(loadConfig({ TRUST_PROXY: "10.0.0.5, 10.1.0.0/16,fd00::/8, loopback" }).trustProxy).toEqual([
        "10.0.0.5",
        "10.1.0.0/16",
        "fd00::/8",
        "loopback",
      ]);
    });

    it("refuses true (any client could name itself), a name, a bad range and a hop count past 100, on one line", () => {
      for (const value of ["true", "proxy.internal", "10.0.0.0/33", "10.0.0.1,", "101", "-1"]) {
        const error = errorOf({ TRUST_PROXY: value });
        expect({ value, lines: error.split("\n").length }).toEqual({ value, lines: 1 });
        expect(error).toMatch(/^TRUST_PROXY: must be false, a hop count/);
      }
    });
  });
  describe("SIGN_IN_PER_ADDRESS_PER_MINUTE", () => {
    it("allows 60 failed sign-ins a minute per address by default, and takes another positive whole number", () => {
      expect(loadConfig({}).signInPerAddressPerMinute).toBe(60);
      expect(loadConfig({ SIGN_IN_PER_ADDRESS_PER_MINUTE: "5" }).signInPerAddressPerMinute).toBe(5);
    });

    it("refuses zero, a fraction, a negative number or a word, on one line naming it", () => {
      for (const value of ["0", "1.5", "-3", "many"]) {
        const error = errorOf({ SIGN_IN_PER_ADDRESS_PER_MINUTE: value });
        expect({ value, lines: error.split("\n").length }).toEqual({ value, lines: 1 });
        expect(error).toMatch(/^SIGN_IN_PER_ADDRESS_PER_MINUTE: /);
      }
    });
  });
});
