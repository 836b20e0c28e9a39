// PORT in use says so in one line, before start-up opens and migrates the database (issue AD.6): a first
// start on PGlite migrates for seconds, and then Fastify's EADDRINUSE stack was all the operator got.
import { createServer } from "node:net";
import { ConfigError } from "./config.js";

/** The one line for a PORT that cannot be listened on; other errors pass through unchanged. */
export function portError(err: unknown, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE") {
    return new ConfigError(`PORT: ${where} is in use by another process; stop it, or start with another PORT (PORT=${port + 1} npm start)`);
  }
  if (code === "EACCES") return new ConfigError(`PORT: ${where} needs privileges this process lacks; use a PORT above 1023`);
  if (code === "EADDRNOTAVAIL") return new ConfigError(`HOST: ${host} is no address of this machine`);
  return err;
}

/**
 * Listens on host:port for a moment and lets go. Not a reservation (another process may take the port
 * before the app listens; that listen's error gets the same line), but it answers before the migrations.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", (err) => reject(portError(err, host, port)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
