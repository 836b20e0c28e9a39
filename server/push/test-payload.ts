// The admin test push's body (docs/api.md#admin-test-endpoints): the same declarative payload as a producer's,
// with no notification behind it and no receipt (nothing is recorded to report against).
import { validationError } from "../errors/errors.js";
import { buildPushPayload, type DeclarativePayload, fitPayload, type PayloadLinks } from "./payload.js";

export function testPushPayload(
  input: { title: string; body?: string | null; url?: string | null },
  links: PayloadLinks,
): DeclarativePayload {
  const url = input.url ?? null;
  const fitted = fitPayload({ title: input.title, body: input.body ?? null, url }, links, 0);
  if ("tooLarge" in fitted) throw validationError(`Push too large: ${fitted.tooLarge}`, [{ field: "url", message: fitted.tooLarge }]);
  return buildPushPayload({ title: input.title, body: fitted.body, url, notificationId: null, receipt: null, appBadge: null }, links);
}
