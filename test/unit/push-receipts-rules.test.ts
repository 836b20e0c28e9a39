// The pure rules behind receipts and collapse: the receipt token (server/push/receipt-token.ts), which
// deliveries a batch supersedes (server/push/collapse.ts), the funnel (server/push/funnel.ts), and which
// VAPID subjects start-up and Apple's push service take (server/push/vapid-subject.ts).
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { supersededInBatch } from "../../server/push/collapse.js";
import { funnelOf, producerFunnels } from "../../server/push/funnel.js";
import { RECEIPT_TOKEN_LENGTH, receiptTokens } from "../../server/push/receipt-token.js";
import { appleRefusesSubject, isAppleEndpoint, vapidSubjectProblem } from "../../server/push/vapid-subject.js";

const tokens = receiptTokens(webpush.generateVAPIDKeys().privateKey);
const inAnHour = () => new Date(Date.now() + 3_600_000);

describe("receipt tokens", () => {
  it("name their delivery until they expire, at one fixed length", () => {
    const id = randomUUID();
    const token = tokens.sign(id, inAnHour());
    expect(token).toHaveLength(RECEIPT_TOKEN_LENGTH);
    expect(tokens.verify(token)).toBe(id);
    expect(tokens.verify(token, new Date(Date.now() + 7_200_000))).toBeNull();
  });

  it("are refused when forged, changed in any character, or signed with another key", () => {
    const token = tokens.sign(randomUUID(), inAnHour());
    const other = receiptTokens(webpush.generateVAPIDKeys().privateKey);
    expect(other.verify(token)).toBeNull();
    fc.assert(
      fc.property(fc.nat(RECEIPT_TOKEN_LENGTH - 1), fc.constantFrom(..."ABCabc012-_"), (at, c) => {
        fc.pre(token[at] !== c);
        expect(tokens.verify(token.slice(0, at) + c + token.slice(at + 1))).toBeNull();
      }),
    );
    for (const bad of [undefined, 42, "", "x".repeat(RECEIPT_TOKEN_LENGTH), `${token}A`, token.slice(1)])
      expect(tokens.verify(bad)).toBeNull();
  });
});

describe("collapse within a batch", () => {
  it("supersedes every delivery that a later one of the same subscription and topic follows, and nothing else", () => {
    const rows = [
      { subscriptionId: "s1", topic: "a" },
      { subscriptionId: "s2", topic: "a" },
      { subscriptionId: "s1", topic: null },
      { subscriptionId: "s1", topic: "a" },
      { subscriptionId: "s1", topic: "b" },
      { subscriptionId: "s1", topic: "a" },
    ];
    expect([...supersededInBatch(rows)].sort()).toEqual([0, 3]);
  });
});

describe("the funnel", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  const d = (status: string, createdAt: number, sent?: number, displayed?: number, clicked?: number) => ({
    status,
    createdAt: at(createdAt),
    sentAt: sent === undefined ? null : at(sent),
    displayedAt: displayed === undefined ? null : at(displayed),
    clickedAt: clicked === undefined ? null : at(clicked),
  });

  it("counts each stage with its first and last time; a click counts as displayed too", () => {
    const funnel = funnelOf([d("sent", 0, 1, 2, 5), d("sent", 0, 3, undefined, 9), d("superseded", 0), d("queued", 4)]);
    expect(funnel).toEqual({
      queued: { count: 4, firstAt: at(0), lastAt: at(4) },
      accepted: { count: 2, firstAt: at(1), lastAt: at(3) },
      displayed: { count: 2, firstAt: at(2), lastAt: at(9) },
      clicked: { count: 2, firstAt: at(5), lastAt: at(9) },
      superseded: 1,
    });
  });

  it("per producer: the median seconds from queued to each stage", () => {
    const [messaging, billing] = producerFunnels([
      { ...d("sent", 0, 1, 2), producer: "messaging" },
      { ...d("sent", 0, 3, 10, 20), producer: "messaging" },
      { ...d("failed", 0), producer: "billing" },
    ]);
    expect(messaging).toMatchObject({ producer: "messaging", medianSeconds: { accepted: 2, displayed: 6, clicked: 20 } });
    expect(billing).toMatchObject({ producer: "billing", medianSeconds: { accepted: null, displayed: null, clicked: null } });
  });
});

describe("the VAPID subject", () => {
  it("start-up takes mailto: with an address or an https: URL, and nothing else", () => {
    for (const ok of ["mailto:ops@example.com", "https://example.com/contact", "mailto:ops@localhost.test"])
      expect(vapidSubjectProblem(ok)).toBeNull();
    for (const bad of [
      "ops@example.com",
      "mailto:",
      "mailto: ops@example.com",
      "mailto:ops",
      "http://example.com",
      "https://",
      "https://u:p@example.com",
    ])
      expect(vapidSubjectProblem(bad), bad).toMatch(/Apple's push service refuses any other subject \(403 BadJwtToken\)/);
  });

  it("Apple refuses placeholder hosts (web-push #947), which are refused before any send to web.push.apple.com", () => {
    for (const refused of [
      "mailto:admin@localhost",
      "mailto:x@host.local",
      "mailto:x@a.invalid",
      "mailto:ops@example.test",
      "https://localhost/x",
      "https://127.0.0.1",
    ])
      expect(appleRefusesSubject(refused), refused).toBe(true);
    for (const taken of ["mailto:ops@example.com", "https://myhost.tailscale.ts.net"])
      expect(appleRefusesSubject(taken), taken).toBe(false);
    expect(isAppleEndpoint("https://web.push.apple.com/QAbc")).toBe(true);
    expect(isAppleEndpoint("https://fcm.googleapis.com/fcm/send/x")).toBe(false);
  });
});
