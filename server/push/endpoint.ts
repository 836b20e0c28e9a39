// Pure rule: which push endpoints the service may POST to (docs/api.md#push-endpoints: https only, http when allowed).

export const MAX_ENDPOINT_LENGTH = 2048;

/** Why an endpoint is refused, or null when it is acceptable. */
export function endpointProblem(endpoint: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "must be an absolute URL";
  }
  const allowed = allowHttp ? ["https:", "http:"] : ["https:"];
  if (!allowed.includes(url.protocol)) return allowHttp ? "must be an http: or https: URL" : "must be an https: URL";
  // Credentials in the URL would be sent along to whoever the host is; no push service uses them.
  if (url.username || url.password) return "must not contain credentials";
  return null;
}
