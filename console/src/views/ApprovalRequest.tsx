// One change request: who asked for what and why, the impact it was made with beside the impact now (what
// moved in between is marked: an approval would then apply nothing, the request goes stale), and the
// decision: Approve or Reject with a comment for a second admin, Cancel for the requester. A request is about
// a cohort, one pro (its preview is compared with the pro's flag now) or a user's admin role (no preview).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "wouter";
import { impactOfProActivation } from "../../../server/restriction/pro-impact.js";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { RequestStatusBadge } from "../components/RequestStatusBadge.js";
import { Time } from "../components/Time.js";
import { useSession } from "../session.js";
import { Decision } from "./ApprovalDecision.js";
import { Changes, CompareImpact } from "./ApprovalImpact.js";
import { type ChangeRequest, describeRequest, type Impact, subjectOf } from "./changeRequests.js";

/** A pro's activation as it would be now, in the shape of the request's preview. */
const proImpactNow = (proId: string, on: boolean): Impact => impactOfProActivation(proId, on);

export function ApprovalRequest({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const me = useSession().data;
  const request = useQuery(trpc.restriction.getChangeRequest.queryOptions({ id }));
  const cr = request.data?.changeRequest;
  const pending = cr?.status === "pending";
  // What the database says at this moment, never an earlier answer.
  const fresh = { gcTime: 0, staleTime: 0 };
  const cohortNow = useQuery({
    ...trpc.restriction.previewCohort.queryOptions({ id: cr?.cohortId ?? "", action: cr?.action === "rollback" ? "rollback" : "activate" }),
    enabled: pending && Boolean(cr?.cohortId),
    ...fresh,
  });
  const proNow = useQuery({
    ...trpc.restriction.getPro.queryOptions({ proId: cr?.proId ?? "" }),
    enabled: pending && Boolean(cr?.proId),
    ...fresh,
  });
  const now = cr?.proId
    ? { ...proNow, data: proNow.data && proImpactNow(cr.proId, proNow.data.restrictionActive) }
    : { ...cohortNow, data: cohortNow.data as Impact | undefined };
  // The service's word on the decision just made here (a stale approval's 409), shown with its outcome.
  const [decided, setDecided] = useState<{ message: string | null } | null>(null);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
  };
  const settled = { onSuccess: () => setDecided({ message: null }), onSettled: refresh };
  const approve = useMutation(
    trpc.restriction.approveChangeRequest.mutationOptions({
      ...settled,
      onError: (error) => {
        // 409: the impact changed and the request is stale now; any other refusal leaves it pending.
        if (error.data?.code === "CONFLICT") setDecided({ message: error.message });
      },
    }),
  );
  const reject = useMutation(trpc.restriction.rejectChangeRequest.mutationOptions(settled));
  const cancel = useMutation(trpc.restriction.cancelChangeRequest.mutationOptions(settled));

  if (request.isPending) return <p aria-busy="true">Loading change request…</p>;
  if (!cr) return <ErrorNotice error={request.error} />;
  const title = describeRequest(cr);
  const subject = subjectOf(cr);
  const mine = cr.requestedBy.id === me?.id;
  return (
    <>
      <p className="crumbs">
        <Link href="/approvals">Pending approvals</Link> › {title}
      </p>
      <h1>
        {title} <RequestStatusBadge status={cr.status} />
      </h1>
      <dl className="facts request-facts">
        <dt>{cr.cohortId ? "Cohort" : cr.proId ? "Pro" : "User"}</dt>
        <dd className="wrap-anywhere">{subject.href ? <Link href={subject.href}>{subject.label}</Link> : subject.label}</dd>
        {cr.action === "grant-admin" && (
          <>
            <dt>Asks for</dt>
            <dd>the platform admin role: once approved, this account may do everything an admin does</dd>
          </>
        )}
        <dt>Requested by</dt>
        <dd>
          <span className="keep-whole">
            {cr.requestedBy.email}
            {mine && " (you)"},
          </span>{" "}
          <Time value={cr.requestedAt} />
        </dd>
        <dt>Reason</dt>
        <dd className="wrap-anywhere">{cr.reason ?? <span className="hint">none given</span>}</dd>
        {cr.decidedBy && (
          <>
            <dt>Decided by</dt>
            <dd>
              <span className="keep-whole">{cr.decidedBy.email},</span> <Time value={cr.decidedAt} />
            </dd>
            <dt>Comment</dt>
            <dd className="wrap-anywhere">{cr.comment ?? <span className="hint">none</span>}</dd>
          </>
        )}
      </dl>
      {!pending && <Outcome request={cr} message={decided?.message ?? null} focus={decided !== null} />}
      {cr.preview && (
        <section className="card" aria-labelledby="impact-title">
          <h2 id="impact-title">{pending ? "Impact when requested and now" : "Impact when requested"}</h2>
          <ErrorNotice error={now.error} />
          {pending && now.isPending && <p aria-busy="true">Working out the impact now…</p>}
          <CompareImpact requested={cr.preview} now={pending ? now.data : undefined} />
          {pending && now.data && <Changes requested={cr.preview} now={now.data} />}
        </section>
      )}
      {pending && mine && (
        <section className="card" aria-labelledby="decision-title">
          <h2 id="decision-title">Waiting for another admin</h2>
          <div className="stack">
            <p className="hint">A second admin approves or rejects it. Until then you may withdraw it.</p>
            <ErrorNotice title="Not cancelled" error={cancel.error} />
            <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate({ id: cr.id })}>
              {cancel.isPending ? "Cancelling…" : "Cancel request"}
            </button>
          </div>
        </section>
      )}
      {pending && !mine && (
        <Decision
          request={cr}
          busy={approve.isPending || reject.isPending}
          error={approve.error ?? reject.error}
          errorTitle={approve.error ? "Not approved" : "Not rejected"}
          onApprove={(comment) => {
            reject.reset();
            approve.mutate({ id: cr.id, comment });
          }}
          onReject={(comment) => {
            approve.reset();
            reject.mutate({ id: cr.id, comment });
          }}
        />
      )}
    </>
  );
}

/** How a decided request ended; focused when it was decided on this page, so that it is read out. */
function Outcome({ request: cr, message, focus }: { request: ChangeRequest; message: string | null; focus: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  const subject = subjectOf(cr);
  // How to go ahead from the subject's page: the path it offers in the service's mode (actionPlan.ts).
  const approvals = useQuery(trpc.settings.get.queryOptions()).data?.approvals;
  const again =
    cr.cohortId && cr.action === "rollback"
      ? "roll it back from"
      : cr.cohortId && cr.action === "activate" && approvals === "off"
        ? "activate it from"
        : "request the change again from";
  const done =
    cr.action === "grant-admin"
      ? `${cr.userEmail ?? cr.userId} is an admin`
      : `${subject.label.charAt(0).toLowerCase()}${subject.label.slice(1)} ${cr.action === "activate" ? (cr.proId ? "is switched on" : "is active") : "is rolled back"}`;
  const by = cr.decidedBy?.email ?? "someone";
  const [tone, lead, detail] =
    cr.status === "applied"
      ? ["notice-ok", "Applied:", `approved by ${by}; ${done}.`]
      : cr.status === "stale"
        ? [
            "notice-warn",
            "Stale: nothing was applied.",
            cr.action === "grant-admin"
              ? "The account was removed, or became an admin another way, before the approval."
              : "Pros' flags changed between the request and the approval.",
          ]
        : cr.status === "rejected"
          ? ["notice-error", "Rejected:", `by ${by}: ${cr.comment ?? ""}`]
          : cr.status === "cancelled"
            ? ["notice-off", "Cancelled:", "withdrawn by its requester; nothing was applied."]
            : ["notice-off", "Expired:", "nobody decided within 72 hours, so nothing was applied."];
  return (
    <div ref={ref} tabIndex={-1} role="status" className={`notice ${tone} wrap-anywhere`}>
      <p>
        <strong>{lead}</strong> {detail}
      </p>
      {/* The service's own words, when it answered this page's approval with them. */}
      {message && <p className="detail">The service said: {message}</p>}
      {cr.status !== "applied" && cr.status !== "rejected" && subject.href && (
        <p>
          To go ahead, {again}{" "}
          <Link href={subject.href}>
            {subject.label.charAt(0).toLowerCase()}
            {subject.label.slice(1)}
          </Link>
          .
        </p>
      )}
    </div>
  );
}
