// One audit event: who did what to which record, what changed in words, and the raw record on demand in
// a box that scrolls on its own (a long record never widens the page).
import { Link } from "wouter";
import type { RouterOutputs } from "../api.js";
import { actionWords, appliedByRequest, describeChange, describeDetails, targetName } from "../auditChange.js";
import { Time } from "../components/Time.js";
import { proPath } from "../links.js";

type AuditEvent = RouterOutputs["audit"]["list"]["events"][number];

/** An email address that breaks before its `@` when the line is short, not inside a word. */
function Email({ address }: { address: string }) {
  const at = address.lastIndexOf("@");
  if (at <= 0) return <>{address}</>;
  return (
    <>
      {address.slice(0, at)}
      <wbr />
      {address.slice(at)}
    </>
  );
}

/** An action's code, breaking after its dot when the line is short: `change_request.` `approve`. */
function ActionCode({ action }: { action: string }) {
  const [area, ...rest] = action.split(".");
  return (
    <code>
      {rest.length ? `${area}.` : area}
      {rest.length > 0 && <wbr />}
      {rest.join(".")}
    </code>
  );
}

/** An id kept whole on its line unless it is wider than the line itself. */
const Id = ({ children }: { children: string }) => <code className="audit-id">{children}</code>;

function Target({ event, cohortNumber }: { event: AuditEvent; cohortNumber?: number }) {
  const { type, id } = event.target;
  if (type === "cohort")
    return (
      <Link href={`/cohorts/${id}`}>
        {cohortNumber !== undefined ? (
          `cohort ${cohortNumber}`
        ) : (
          <>
            cohort <Id>{id}</Id>
          </>
        )}
      </Link>
    );
  if (type === "pro")
    return (
      <Link href={proPath(id)}>
        pro <Id>{id}</Id>
      </Link>
    );
  if (type === "change_request")
    return (
      <Link href={`/approvals/${id}`}>
        change request <Id>{id.slice(0, 8)}</Id>
      </Link>
    );
  const name = targetName(event);
  const kind = type === "apikey" ? "API key" : type;
  return name ? (
    <>
      {kind} <span className="audit-id">{name}</span>
      <div className="hint">
        <Id>{id}</Id>
      </div>
    </>
  ) : (
    <>
      {kind} <Id>{id}</Id>
    </>
  );
}

const raw = (event: AuditEvent) =>
  JSON.stringify({ id: event.id, requestId: event.requestId, before: event.before, after: event.after, details: event.details }, null, 2);

export function AuditRow({ event, cohortNumbers }: { event: AuditEvent; cohortNumbers: Map<string, number> }) {
  const changes = describeChange(event, { cohortNumber: (id) => cohortNumbers.get(id) });
  const details = describeDetails(event.details);
  const request = appliedByRequest(event.details);
  const record = raw(event);
  return (
    <tr>
      <td data-label="When">
        <Time value={event.at} />
      </td>
      <td data-label="Actor">
        <Email address={event.actor.email} />
        {event.impersonatedBy && (
          <div className="hint">
            impersonated by <Email address={event.impersonatedBy.email} />
          </div>
        )}
      </td>
      <td data-label="Action">
        {actionWords(event.action)}
        <div className="hint">
          <ActionCode action={event.action} />
        </div>
      </td>
      <td data-label="Target">
        <Target event={event} cohortNumber={cohortNumbers.get(event.target.id)} />
      </td>
      <td data-label="Reason">{event.reason ?? "—"}</td>
      <td data-label="What changed" className="audit-change">
        {changes.length > 0 ? (
          <ul className="plain change-lines">
            {changes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        ) : (
          <p className="hint">No field changed</p>
        )}
        {details.length > 0 && (
          <ul className="plain change-details">
            {details.map((line) => (
              <li key={line}>{line}</li>
            ))}
            {request && (
              <li>
                <Link href={`/approvals/${request}`}>Open the change request</Link>
              </li>
            )}
          </ul>
        )}
        <details className="raw-record">
          <summary>raw record</summary>
          {/* A read-only text box: it scrolls on its own, the keyboard reaches it, and the text copies whole. */}
          <textarea className="raw-box" aria-label="Raw record" readOnly rows={Math.min(record.split("\n").length, 16)} value={record} />
        </details>
      </td>
    </tr>
  );
}
