// OFREP requests through app.inject, as an OpenFeature provider sends them (open-feature/protocol
// service/openapi.yaml), and the flag's key.
import type { TestApp } from "./app.js";

export const FLAG = "restrict-direct-contact";

export type OfrepRequest = { headers?: Record<string, string>; body?: unknown; raw?: string; flag?: string };

/** POST /ofrep/v1/evaluate/flags/<flag> (single) or /ofrep/v1/evaluate/flags (bulk, `flag: null`). */
export function ofrep(app: () => TestApp) {
  const send = (url: string, request: OfrepRequest) =>
    app().app.inject({
      method: "POST",
      url,
      headers: { "content-type": "application/json", ...request.headers },
      payload: request.raw ?? JSON.stringify(request.body ?? {}),
    });
  return {
    evaluate: (request: OfrepRequest) => send(`/ofrep/v1/evaluate/flags/${encodeURIComponent(request.flag ?? FLAG)}`, request),
    bulk: (request: OfrepRequest) => send("/ofrep/v1/evaluate/flags", request),
  };
}

/** The evaluation context naming a pro. */
export const forPro = (proId: string) => ({ context: { targetingKey: proId } });
