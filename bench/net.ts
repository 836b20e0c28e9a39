// A port for a child process to listen on, shared by the benches and the tests (test/helpers/net.ts).
import { type AddressInfo, createServer } from "node:net";

/** A port nothing listens on now, from the system (the machine is shared: a fixed port may be someone else's). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
