// An error as the service put it: the message, and for a validation error each field and why.
import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../../server/routers/app-router.js";
import { isWriteError } from "../api.js";
import { isUnreachable, UNREACHABLE_READ, UNREACHABLE_WRITE } from "../unreachable.js";
import { useResultFocus } from "../useResultFocus.js";

type FieldIssue = { field: string; message: string };

function describe(error: unknown): { message: string; details: FieldIssue[] } {
  // Not the browser's "Failed to fetch": one sentence for every view, a write's saying it was not resent.
  if (isUnreachable(error)) return { message: isWriteError(error) ? UNREACHABLE_WRITE : UNREACHABLE_READ, details: [] };
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<AppRouter>).data;
    // A list of fields at fault; a 503 whose outcome is unknown carries an object instead, and says so in its message.
    const details = data?.details;
    return { message: error.message, details: Array.isArray(details) ? details : [] };
  }
  if (error instanceof Error) return { message: error.message, details: [] };
  return { message: "Something went wrong", details: [] };
}

/**
 * `title` says what failed ("Push not sent"); the message is the service's own. `focus`: the error of an
 * action the operator just took, so each new one takes focus (its button may be disabled or gone).
 */
export function ErrorNotice({ error, title, focus = false }: { error: unknown; title?: string; focus?: boolean }) {
  const ref = useResultFocus<HTMLDivElement>(focus ? error : null);
  if (!error) return null;
  const { message, details } = describe(error);
  return (
    <div role="alert" className="notice notice-error" ref={ref} tabIndex={focus ? -1 : undefined}>
      <p>
        {title && <strong>{title}: </strong>}
        {message}
      </p>
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={`${d.field}:${d.message}`}>
              <code>{d.field}</code>: {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
