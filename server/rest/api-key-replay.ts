// A replay of `POST /api/admin/api-keys` (docs/api.md#service-api-keys): the first answer holds the secret,
// which the service keeps nowhere, so the Idempotency-Key row keeps instead the answer a replay gives: 409
// CONFLICT with the key made and without its secret. The caller who lost the first answer revokes that key
// and makes another.
import type { ReplayAnswer } from "./idempotency.js";
import { apiKeyRoutes } from "./routes.js";

export const KEY_CREATED_MESSAGE = "The key was created; its secret is shown once";

/** The envelope's error (docs/api.md#envelope) with the key, as /openapi.json's KeyCreatedReplay describes it. */
type KeyCreatedBody = { success: false; error: { code: "CONFLICT"; message: string; details: { apiKey: unknown } } };

const create = apiKeyRoutes.find((route) => route.procedure === "apiKeys.create")!;

/** The route (`"POST /api/admin/api-keys"`) and what its replay answers, for registerIdempotency's `replays`. */
export const keyCreationReplay: Record<string, ReplayAnswer> = {
  [`${create.method} ${create.path}`]: (first) => {
    // Refusals (4xx) hold no secret and replay as they were.
    if (first.status !== (create.status ?? 200)) return first;
    const { apiKey } = (JSON.parse(first.body) as { data: { apiKey: unknown } }).data;
    const body: KeyCreatedBody = { success: false, error: { code: "CONFLICT", message: KEY_CREATED_MESSAGE, details: { apiKey } } };
    return { status: 409, body: JSON.stringify(body) };
  },
};
