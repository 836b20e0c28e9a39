// Activate or roll back a cohort: preview first, then confirm in a dialog that shows what will change. Where
// a second admin must approve (docs/api.md#four-eyes-approval), the same dialog requests the change instead:
// "Request activation…" / "Request rollback…" are always offered beside the direct actions, and a direct
// activation refused with "Approval required" offers to request it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { type ReactNode, useState } from "react";
import { Link } from "wouter";
import { MAX_CHANGE_REQUEST_TEXT_LENGTH, MAX_ROLLBACK_REASON_LENGTH } from "../../../server/routers/restriction/limits.js";
import { type RouterOutputs, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Explained } from "../components/Explained.js";
import { Time } from "../components/Time.js";
import { plural } from "../format.js";
import { checkTiming, explainBlocker } from "../gates.js";
import { cohortRequestsQuery } from "./ChangeRequestHistory.js";
import { actionNoun, requestPath } from "./changeRequests.js";
import { ImpactPreview } from "./ImpactPreview.js";

type Cohort = RouterOutputs["restriction"]["listCohorts"][number];
type Action = "activate" | "rollback";

/** The service refused a direct change because approvals are required (409 activation, 400 rollback). */
const approvalRequired = (error: unknown) => error instanceof TRPCClientError && /^Approval required/.test(error.message);

export function CohortActions({ cohort, cohortNumbers }: { cohort: Cohort; cohortNumbers: Map<string, number> }) {
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action | null>(null);
  // Whether the open dialog requests the change (a change request) rather than making it.
  const [requesting, setRequesting] = useState(false);
  const [reason, setReason] = useState("");
  const [done, setDone] = useState<ReactNode>(null);

  const preview = useQuery({
    ...trpc.restriction.previewCohort.queryOptions({ id: cohort.id, action: action ?? "activate" }),
    enabled: action !== null,
    // Always what the database says now, never a preview from an earlier opening.
    gcTime: 0,
    staleTime: 0,
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
  };
  const onSuccess = async (message: ReactNode) => {
    setAction(null);
    setReason("");
    setDone(message);
    await refresh();
  };
  const activate = useMutation(
    trpc.restriction.activateCohort.mutationOptions({ onSuccess: (c) => onSuccess(`Cohort ${c.cohortNumber} activated.`) }),
  );
  const rollback = useMutation(
    trpc.restriction.rollbackCohort.mutationOptions({ onSuccess: (c) => onSuccess(`Cohort ${c.cohortNumber} rolled back.`) }),
  );
  const request = useMutation(
    trpc.restriction.createChangeRequest.mutationOptions({
      onSuccess: ({ changeRequest: cr }) =>
        onSuccess(
          <>
            {actionNoun[cr.action]} of cohort {cr.cohortNumber} requested: another admin must approve it.{" "}
            <Link href={requestPath(cr.id)}>Open the request</Link>
          </>,
        ),
    }),
  );
  const mutation = requesting ? request : action === "rollback" ? rollback : activate;
  const maxReason = requesting ? MAX_CHANGE_REQUEST_TEXT_LENGTH : MAX_ROLLBACK_REASON_LENGTH;

  const open = (next: Action, asRequest: boolean) => {
    activate.reset();
    rollback.reset();
    request.reset();
    setDone(null);
    setRequesting(asRequest);
    setAction(next);
  };
  const confirm = () => {
    const why = reason.trim() || null;
    if (requesting && action) request.mutate({ id: cohort.id, action, reason: why });
    else if (action === "activate") activate.mutate({ id: cohort.id });
    else if (action === "rollback") rollback.mutate({ id: cohort.id, reason: why });
  };
  const switchToRequest = () => {
    activate.reset();
    rollback.reset();
    setRequesting(true);
  };
  // A request may be made while activation is blocked: its approval applies it once the gates pass.
  const blocked = !requesting && action === "activate" && Boolean(preview.data?.blockedBy);
  // The same query as the gate check history below: one request, and fresh after every check.
  const latestCheck = useQuery(trpc.restriction.listGateChecks.queryOptions({ id: cohort.id })).data?.[0];
  // At most one pending request per cohort and action: while there is one, the button opens it.
  const pending = useQuery(cohortRequestsQuery(cohort.id)).data?.changeRequests.filter((r) => r.status === "pending") ?? [];
  const nextAction: Action = cohort.status === "active" ? "rollback" : "activate";
  const pendingNext = pending.find((r) => r.action === nextAction);
  const refusedForApproval = approvalRequired(mutation.error);
  const verb = action === "rollback" ? "rollback" : "activation";

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Rollout</h2>
      <p className="hint">
        Each action shows its effect on the {plural(cohort.proIds.length, "pro")} first and asks to confirm. Where a second admin must
        approve, request the change instead: it waits under Approvals.
      </p>
      {cohort.status !== "active" && <LatestCheck cohort={cohort} check={latestCheck} />}
      <div className="row">
        {cohort.status !== "active" && (
          <button type="button" className="primary" onClick={() => open("activate", false)}>
            Preview activation…
          </button>
        )}
        {cohort.status === "active" && (
          <button type="button" className="danger" onClick={() => open("rollback", false)}>
            Preview rollback…
          </button>
        )}
        {pendingNext ? (
          <Link href={requestPath(pendingNext.id)} className="button-link">
            {actionNoun[nextAction]} requested: waiting for approval
          </Link>
        ) : (
          <button type="button" onClick={() => open(nextAction, true)}>
            {nextAction === "activate" ? "Request activation…" : "Request rollback…"}
          </button>
        )}
      </div>
      {done && (
        <p role="status" className="notice notice-ok">
          {done}
        </p>
      )}
      <ConfirmDialog
        open={action !== null}
        title={
          requesting
            ? `Request ${verb} of cohort ${cohort.cohortNumber}`
            : `${action === "rollback" ? "Roll back" : "Activate"} cohort ${cohort.cohortNumber}?`
        }
        confirmLabel={mutation.isPending ? "Working…" : requesting ? "Request approval" : action === "rollback" ? "Roll back" : "Activate"}
        tone={!requesting && action === "rollback" ? "danger" : "primary"}
        confirmDisabled={!preview.data || blocked || mutation.isPending || reason.length > maxReason}
        onConfirm={confirm}
        onCancel={() => setAction(null)}
      >
        {requesting && (
          <p className="hint">
            Nothing changes yet: a second admin reviews this impact and approves it. If the impact changes before then, the approval applies
            nothing.
          </p>
        )}
        {action !== null && preview.isPending && <p aria-busy="true">Working out the effect…</p>}
        <ErrorNotice error={preview.error} />
        {action === "activate" && latestCheck && <StaleCheckWarning cohort={cohort} check={latestCheck} />}
        {preview.data && <ImpactPreview preview={preview.data} cohortNumbers={cohortNumbers} />}
        {(action === "rollback" || requesting) && (
          <label>
            {requesting
              ? `Reason (optional, shown to the approving admin${action === "rollback" ? " and kept as the rollback's reason" : ""})`
              : "Reason (optional, kept with the cohort and in the audit log; at least 10 letters, digits or punctuation marks where approvals are required)"}
            <textarea
              rows={3}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              autoFocus
              aria-invalid={reason.length > maxReason}
            />
            <span className="hint">
              {reason.length} / {maxReason} characters
            </span>
          </label>
        )}
        {refusedForApproval && action === "activate" ? (
          <div role="alert" className="notice notice-warn">
            <p>A second admin must approve an activation here. Request it instead: it waits under Approvals.</p>
          </div>
        ) : (
          <ErrorNotice error={mutation.error} />
        )}
        {refusedForApproval && !requesting && (
          <button type="button" className="primary" onClick={switchToRequest}>
            Request approval instead
          </button>
        )}
      </ConfirmDialog>
    </section>
  );
}

type GateCheck = RouterOutputs["restriction"]["listGateChecks"][number];

/** The latest gate check in words: its result, how old it is, and whether the cohort changed since. */
function LatestCheck({ cohort, check }: { cohort: Cohort; check: GateCheck | undefined }) {
  if (!check) {
    return <p className="latest">Latest gate check: none yet, so activation is blocked. Run one below.</p>;
  }
  const timing = checkTiming(check.checkedAt, cohort, new Date());
  return (
    <div className="latest">
      <p>
        Latest gate check:{" "}
        {check.allGatesMet ? <span className="badge badge-active">All gates met</span> : <span className="badge badge-fail">Blocked</span>}{" "}
        {timing.ago} (<Time value={check.checkedAt} />){timing.beforeRollback && <strong>, before the cohort&apos;s rollback</strong>}.
      </p>
      {!check.allGatesMet && check.blockedBy && (
        <p>
          <Explained text={explainBlocker(check.blockedBy)} />
        </p>
      )}
    </div>
  );
}

/** In the activation dialog: the passing check that would be used was run before the cohort was rolled back. */
function StaleCheckWarning({ cohort, check }: { cohort: Cohort; check: GateCheck }) {
  const timing = checkTiming(check.checkedAt, cohort, new Date());
  if (!timing.beforeRollback) return null;
  return (
    <div role="note" className="notice notice-warn">
      <p>
        The latest gate check was run {timing.ago} (<Time value={check.checkedAt} />
        ), before this cohort was rolled back (<Time value={timing.beforeRollback} />
        {cohort.rollbackReason ? <>: “{cohort.rollbackReason}”</> : null}). Activating now relies on that older check: run a new gate check
        first if the figures may have changed.
      </p>
    </div>
  );
}
