// VAPID_SUBJECT at start-up (docs/api.md#web-push-keys): a subject no push service can use stops the service
// with one line naming it and why; a placeholder host Apple refuses starts, with a warning that Safari and iOS
// pushes are not sent.
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

const keys = webpush.generateVAPIDKeys();
const withSubject = (subject?: string): Record<string, string> => ({
  VAPID_PUBLIC_KEY: keys.publicKey,
  VAPID_PRIVATE_KEY: keys.privateKey,
  ...(subject === undefined ? {} : { VAPID_SUBJECT: subject }),
});

describe("VAPID_SUBJECT", () => {
  it("stops start-up with one line naming it and why Apple refuses anything but mailto: or https:", () => {
    for (const subject of ["ops@example.com", "mailto: ops@example.com", "http://example.com", "mailto:nobody", "mailto:admin@localhost"]) {
      const message = configErrorOf(withSubject(subject));
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toMatch(
        /^VAPID_SUBJECT: must be mailto: followed by an e-mail address, or an https: URL: Apple's push service refuses/,
      );
    }
  });

  it("starts with a placeholder host, warning that Apple's push service would refuse it", () => {
    expect(loadConfig(withSubject("mailto:ops@example.com")).warnings).toEqual([]);
    expect(loadConfig(withSubject("mailto:ops@host.local")).warnings).toEqual([
      expect.stringMatching(/^VAPID_SUBJECT "mailto:ops@host.local": Apple's push service refuses/),
    ]);
    expect(loadConfig(withSubject()).warnings).toEqual([expect.stringMatching(/^VAPID_SUBJECT is unset \(so "mailto:admin@localhost"\)/)]);
  });
});
