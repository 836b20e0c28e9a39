// A local Web Push service for the tests and the bench: a node:http server on 127.0.0.1 whose endpoints answer with a
// chosen status, never answer, or misbehave (throttle, reset, talk nonsense, redirect, answer late), and a
// browser-side subscriber with real P-256 keys that decrypts what arrived (http_ece) and checks the VAPID
// JWT (node:crypto).
import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

// http_ece ships no types; this is the one call the tests make.
type Ece = { decrypt(buffer: Buffer, params: { version: "aes128gcm"; privateKey: ECDH; authSecret: Buffer }): Buffer };
const ece = createRequire(import.meta.url)("http_ece") as Ece;

export type ReceivedPush = { path: string; headers: IncomingHttpHeaders; body: Buffer /** Date.now() at arrival. */; at: number };
/**
 * How an endpoint answers: an HTTP status; `hang`, read the request and never answer; `429-retry`, 429
 * with Retry-After; `reset`, destroy the socket once the request has arrived; `garbage`, bytes that are not
 * HTTP; `redirect`, 301 elsewhere; `delay-<ms>`, 201 after that long; `503-then-201`, 503 at an endpoint's
 * first request and 201 after; `429-then-201`, 429 with Retry-After: 1 first, 201 after.
 */
export type Behaviour =
  | number
  | "hang"
  | "429-retry"
  | "reset"
  | "garbage"
  | "redirect"
  | `delay-${number}`
  | "503-then-201"
  | "429-then-201";

export type LocalPushService = {
  origin: string;
  /** Every request that reached the service, in arrival order. */
  received: ReceivedPush[];
  /** How many requests reached endpoints of this behaviour so far. */
  arrived(behaviour: Behaviour): number;
  /** A fresh endpoint URL that answers as told. */
  endpoint(behaviour: Behaviour): string;
  close(): Promise<void>;
};

/** The largest encrypted body this service takes; a larger one is answered 413 whatever the endpoint. */
export const MAX_PUSH_BYTES = 4096;

/** Endpoints are `/push/<behaviour>/<random>`. */
const behaviourOf = (path: string) => path.split("/")[2] ?? "";

function answer(behaviour: string, req: IncomingMessage, res: ServerResponse, earlier: number): void {
  if (behaviour === "hang") return;
  if (behaviour === "503-then-201") return void res.writeHead(earlier === 0 ? 503 : 201).end();
  if (behaviour === "429-then-201") return void (earlier === 0 ? res.writeHead(429, { "retry-after": "1" }) : res.writeHead(201)).end();
  if (behaviour === "reset") return void req.socket.destroy();
  if (behaviour === "garbage") return void req.socket.end("this is not HTTP\r\n\r\n");
  if (behaviour === "redirect") return void res.writeHead(301, { location: "http://127.0.0.1:9/elsewhere" }).end();
  if (behaviour === "429-retry") return void res.writeHead(429, { "retry-after": "120" }).end("slow down");
  const delay = /^delay-(\d+)$/.exec(behaviour);
  if (delay) {
    const timer = setTimeout(() => res.writeHead(201).end(), Number(delay[1]));
    res.on("close", () => clearTimeout(timer));
    return;
  }
  res.writeHead(Number(behaviour) || 500, { "content-type": "text/plain" }).end("answered by the test push service");
}

export async function startPushService(): Promise<LocalPushService> {
  const received: ReceivedPush[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = req.url ?? "/";
      const earlier = received.filter((r) => r.path === path).length;
      const body = Buffer.concat(chunks);
      received.push({ path, headers: req.headers, body, at: Date.now() });
      // As real push services do (RFC 8030 §7.2 has them accept 4096 bytes, and no more need be taken).
      if (body.length > MAX_PUSH_BYTES) return void res.writeHead(413).end("payload too large");
      answer(behaviourOf(path), req, res, earlier);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    received,
    arrived: (behaviour) => received.filter((r) => behaviourOf(r.path) === String(behaviour)).length,
    endpoint: (behaviour) => `${origin}/push/${behaviour}/${randomBytes(8).toString("hex")}`,
    async close() {
      // Hanging requests keep their sockets open; close them so the server can stop.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** What a browser's PushManager.subscribe() would create: a key pair and an auth secret. */
export type Subscriber = {
  p256dh: string;
  auth: string;
  /** The decrypted payload of a push request's body, parsed as JSON. */
  decrypt(body: Buffer): unknown;
};

export function makeSubscriber(): Subscriber {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    p256dh: ecdh.getPublicKey().toString("base64url"),
    auth: authSecret.toString("base64url"),
    decrypt: (body) => JSON.parse(ece.decrypt(body, { version: "aes128gcm", privateKey: ecdh, authSecret }).toString("utf8")),
  };
}

export type VapidClaims = { aud: string; exp: number; sub: string };

/**
 * Checks an `Authorization: vapid t=<jwt>, k=<public key>` header (RFC 8292): k is the expected key, the
 * JWT is ES256 and its signature verifies with that key. Returns the claims for the caller to compare.
 */
export function verifyVapidAuthorization(header: string | undefined, publicKey: string): VapidClaims {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? "");
  if (!match) throw new Error(`not a VAPID authorization header: ${header}`);
  const [, jwt, k] = match as unknown as [string, string, string];
  if (k !== publicKey) throw new Error("k is not the server's VAPID public key");
  const [encodedHeader, encodedClaims, signature] = jwt.split(".") as [string, string, string];
  const jwtHeader = JSON.parse(Buffer.from(encodedHeader, "base64url").toString()) as { alg?: string };
  if (jwtHeader.alg !== "ES256") throw new Error(`unexpected JWT alg ${jwtHeader.alg}`);

  // The raw key is an uncompressed P-256 point: 0x04 || x (32 bytes) || y (32 bytes).
  const point = Buffer.from(k, "base64url");
  const key = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
  const valid = verify(
    "sha256",
    Buffer.from(`${encodedHeader}.${encodedClaims}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  if (!valid) throw new Error("VAPID JWT signature does not verify");
  return JSON.parse(Buffer.from(encodedClaims, "base64url").toString()) as VapidClaims;
}
