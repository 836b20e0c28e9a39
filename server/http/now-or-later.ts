// A value that memory can give at once, or a promise of it when the database must be read. The hot reads
// (an API key, a pro's status, a session) answer from memory nearly always; an async function around each
// turned every such answer into a promise and a later turn of the event loop, a few microseconds a request
// for each layer (issue AE, BENCHMARKS.md "sixteenth round"). Callers that `await` take either.

export type NowOrLater<T> = T | Promise<T>;

/** `next` of the value: called at once when the value is there, else when the promise settles. */
export function andThen<T, R>(value: NowOrLater<T>, next: (value: T) => NowOrLater<R>): NowOrLater<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
