import { type RequestStatus, requestStatuses } from "../views/changeRequests.js";

/** A change request's status as a word and a colour; its meaning on hover. */
export function RequestStatusBadge({ status }: { status: RequestStatus }) {
  const s = requestStatuses[status];
  return (
    <span className={`badge ${s.badge}`} title={s.meaning}>
      {s.label}
    </span>
  );
}
