import { request as httpRequest } from "node:http";

export { freePort } from "../../bench/net.js";

export type RawAnswer = { status: number; body: string };

/**
 * A request whose path is sent exactly as written: fetch() and app.inject resolve `./` and `../` first,
 * and a test of what the server makes of such paths needs them to arrive.
 */
export function rawRequest(
  base: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, method: options.method, path: options.path, headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
