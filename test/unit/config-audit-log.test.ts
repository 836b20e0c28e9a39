// The audit log's settings (docs/api.md#audit-log): a bad value stops start-up with one line naming it.
import { describe, expect, it } from "vitest";
import { generateSignerKey } from "../../server/audit/log/note.js";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

describe("audit log settings", () => {
  it("default to no key, a checkpoint a minute, and nowhere to write one", () => {
    expect(loadConfig({}).auditLog).toEqual({ signer: null, checkpointSeconds: 60, destinations: { dir: null, url: null } });
  });

  it("read a key made by audit:keygen, the interval, a directory and a URL", () => {
    const key = generateSignerKey("audit.example.com/log").signer;
    const config = loadConfig({
      AUDIT_SIGNING_KEY: key,
      AUDIT_CHECKPOINT_SECONDS: "5",
      AUDIT_CHECKPOINT_DIR: "/var/lib/audit",
      AUDIT_CHECKPOINT_URL: "https://witness.example.com/checkpoints",
    });
    expect(config.auditLog.signer?.name).toBe("audit.example.com/log");
    expect(config.auditLog).toMatchObject({
      checkpointSeconds: 5,
      destinations: { dir: "/var/lib/audit", url: "https://witness.example.com/checkpoints" },
    });
  });

  it("refuse a key that is not one, a key whose hash was edited, an interval out of range, a URL that is not http(s)", () => {
    expect(configErrorOf({ AUDIT_SIGNING_KEY: "secret" })).toMatch(/^AUDIT_SIGNING_KEY: must be PRIVATE\+KEY\+/);
    const edited = generateSignerKey("log").signer.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    expect(configErrorOf({ AUDIT_SIGNING_KEY: edited })).toMatch(/^AUDIT_SIGNING_KEY: .*key hash/);
    expect(configErrorOf({ AUDIT_CHECKPOINT_SECONDS: "0" })).toMatch(/^AUDIT_CHECKPOINT_SECONDS: /);
    expect(configErrorOf({ AUDIT_CHECKPOINT_SECONDS: "soon" })).toMatch(/^AUDIT_CHECKPOINT_SECONDS: /);
    expect(configErrorOf({ AUDIT_CHECKPOINT_URL: "ftp://example.com/x" })).toMatch(/^AUDIT_CHECKPOINT_URL: must be an http: or https: URL/);
  });

  it("warn that a destination without a key gets nothing", () => {
    expect(loadConfig({ AUDIT_CHECKPOINT_DIR: "/tmp/x" }).warnings).toContain(
      "AUDIT_CHECKPOINT_DIR/AUDIT_CHECKPOINT_URL are set but AUDIT_SIGNING_KEY is not: no checkpoint is signed or written",
    );
  });
});
