// Reading a Server-Sent Events stream in tests, as a browser's EventSource would: events by name, with
// their data, in arrival order.
export type SseEvent = { event: string; data: string };

export type SseStream = {
  status: number;
  headers: Headers;
  /** The next event, or an error after `withinMs`. */
  next(withinMs?: number): Promise<SseEvent>;
  /** Resolves once the server has ended the stream (or rejects after `withinMs`). */
  ended(withinMs?: number): Promise<void>;
  close(): void;
};

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const queue: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let done = false;
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  void (async () => {
    if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) {
      done = true;
      return wake();
    }
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      const reader = res.body.getReader();
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = block.split("\n").filter((l) => !l.startsWith(":"));
          const event =
            lines
              .find((l) => l.startsWith("event:"))
              ?.slice(6)
              .trim() ?? "message";
          const data = lines
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trimStart())
            .join("\n");
          if (lines.some((l) => l.startsWith("data:"))) queue.push({ event, data });
          wake();
        }
      }
    } catch {
      // aborted by close()
    }
    done = true;
    wake();
  })();

  const waitFor = (ready: () => boolean, withinMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${withinMs} ms`)), withinMs);
      const check = () => {
        if (ready()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });

  return {
    status: res.status,
    headers: res.headers,
    async next(withinMs = 2_000) {
      await waitFor(() => queue.length > 0 || done, withinMs, "event");
      const event = queue.shift();
      if (!event) throw new Error("the stream ended");
      return event;
    },
    ended: (withinMs = 2_000) => waitFor(() => done, withinMs, "end of stream"),
    close: () => abort.abort(),
  };
}

/** The count of the next `unread-count` event. */
export async function nextCount(stream: SseStream, withinMs?: number): Promise<number> {
  const event = await stream.next(withinMs);
  if (event.event !== "unread-count") throw new Error(`expected unread-count, got ${event.event}`);
  return (JSON.parse(event.data) as { count: number }).count;
}
