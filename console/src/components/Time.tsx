import { formatDate, isoOf } from "../format.js";

/** A timestamp in the reader's locale, the exact ISO value on hover. */
export function Time({ value }: { value: Date | string | null | undefined }) {
  const iso = isoOf(value);
  if (!iso)
    return (
      <span role="img" aria-label="not set">
        —
      </span>
    );
  return (
    <time dateTime={iso} title={iso}>
      {formatDate(value)}
    </time>
  );
}
