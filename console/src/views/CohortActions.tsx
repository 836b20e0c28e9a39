// Activate or roll back a cohort: preview first, then confirm in a dialog that shows what will change. The
// page offers the one path the service's mode allows (settings.get, docs/api.md#four-eyes-approval; the rule
// in actionPlan.ts): with approvals required an activation is requested, never tried and refused, and a
// rollback goes ahead at once with a written reason that is checked here as the service checks it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Link } from "wouter";
import { type ActionPlan, type Approvals, type CohortAction, planFor, reasonCount, reasonProblem } from "../actionPlan.js";
import { type RouterOutputs, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Explained } from "../components/Explained.js";
import { Time } from "../components/Time.js";
import { plural } from "../format.js";
import { checkTiming, explainBlocker } from "../gates.js";
import { useResultFocus } from "../useResultFocus.js";
import { cohortRequestsQuery } from "./ChangeRequestHistory.js";
import { coverageQuery } from "./CohortCoverage.js";
import { actionNoun, requestPath } from "./changeRequests.js";
import { ImpactPreview } from "./ImpactPreview.js";

type Cohort = RouterOutputs["restriction"]["listCohorts"][number];

/** The service refused a direct activation because approvals are required (409): its mode changed under the page. */
const approvalRequired = (error: unknown) => error instanceof TRPCClientError && /^Approval required/.test(error.message);

export function CohortActions({ cohort, cohortNumbers }: { cohort: Cohort; cohortNumbers: Map<string, number> }) {
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.settings.get.queryOptions());
  // A 409 "Approval required" overrides a mode read before the service restarted with APPROVALS=required.
  const [toldRequired, setToldRequired] = useState(false);
  const approvals: Approvals | undefined = toldRequired ? "required" : settings.data?.approvals;
  const [action, setAction] = useState<CohortAction | null>(null);
  const [reason, setReason] = useState("");
  // How often confirming found the reason wanting: a missing reason is said from the first time, not while
  // the field is still empty, and each time focus goes back to the field.
  const [tried, setTried] = useState(0);
  // A new object per outcome, so that the same words twice still take focus.
  const [done, setDone] = useState<{ message: ReactNode } | null>(null);
  const doneRef = useResultFocus<HTMLParagraphElement>(done);

  const preview = useQuery({
    ...trpc.restriction.previewCohort.queryOptions({ id: cohort.id, action: action ?? "activate" }),
    enabled: action !== null,
    // Always what the database says now, never a preview from an earlier opening.
    gcTime: 0,
    staleTime: 0,
  });
  // Settled before the dialog closes, so the page below the outcome no longer moves once it has focus.
  const refresh = async (activated: boolean) => {
    await queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
    if (activated) await queryClient.prefetchQuery(coverageQuery(cohort.id));
  };
  const onSuccess = async (message: ReactNode, activated = false) => {
    await refresh(activated);
    setAction(null);
    setReason("");
    setDone({ message });
  };
  const activate = useMutation(
    trpc.restriction.activateCohort.mutationOptions({
      onSuccess: (c) => onSuccess(`Cohort ${c.cohortNumber} activated.`, true),
      onError: (error) => {
        if (approvalRequired(error)) {
          setToldRequired(true);
          void queryClient.invalidateQueries({ queryKey: trpc.settings.pathKey() });
        }
      },
    }),
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

  // The same query as the gate check history below: one request, and fresh after every check.
  const latestCheck = useQuery(trpc.restriction.listGateChecks.queryOptions({ id: cohort.id })).data?.[0];
  // At most one pending request per cohort and action: while there is one, it is linked instead of asked again.
  const pending = useQuery(cohortRequestsQuery(cohort.id)).data?.changeRequests.filter((r) => r.status === "pending") ?? [];
  const nextAction: CohortAction = cohort.status === "active" ? "rollback" : "activate";
  const pendingNext = pending.find((r) => r.action === nextAction);
  const next = approvals && planFor(nextAction, approvals, cohort.cohortNumber);
  const plan = approvals && action ? planFor(action, approvals, cohort.cohortNumber) : null;
  const mutation = plan?.kind === "request" ? request : action === "rollback" ? rollback : activate;

  const open = (which: CohortAction) => {
    activate.reset();
    rollback.reset();
    request.reset();
    setDone(null);
    setReason("");
    setTried(0);
    setAction(which);
  };
  const confirm = () => {
    if (!plan || !action) return;
    if (plan.reason && reasonProblem(plan.reason, reason)) {
      setTried((n) => n + 1);
      return;
    }
    const why = reason.trim() ? reason : null;
    if (plan.kind === "request") request.mutate({ id: cohort.id, action, reason: why });
    else if (action === "activate") activate.mutate({ id: cohort.id });
    else rollback.mutate({ id: cohort.id, reason: why });
  };
  // A request may be made while activation is blocked: its approval applies it once the gates pass.
  const blocked = plan?.kind === "direct" && action === "activate" && Boolean(preview.data?.blockedBy);

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Rollout</h2>
      <ErrorNotice error={settings.error} title="Could not read whether approvals are required" />
      {!next && settings.isPending && <p aria-busy="true">Reading whether approvals are required…</p>}
      {next && (
        <p className="hint">
          {approvals === "required"
            ? `Approvals are required here: an activation is requested and applied once another admin approves it; a rollback happens at once, with a written reason. Each shows its effect on the ${plural(cohort.proIds.length, "pro")} first.`
            : `Each action shows its effect on the ${plural(cohort.proIds.length, "pro")} first and asks to confirm.`}
        </p>
      )}
      {cohort.status !== "active" && <LatestCheck cohort={cohort} check={latestCheck} />}
      {next && (
        <div className="row">
          {pendingNext && next.kind === "request" ? (
            <Link href={requestPath(pendingNext.id)} className="button-link">
              {actionNoun[nextAction]} requested: waiting for approval
            </Link>
          ) : (
            <button type="button" className={next.tone} onClick={() => open(nextAction)}>
              {next.openLabel}
            </button>
          )}
          {/* A rollback request made through the API: the rollback above does not wait for it. */}
          {pendingNext && next.kind === "direct" && (
            <Link href={requestPath(pendingNext.id)}>{actionNoun[nextAction]} requested by another path: open the request</Link>
          )}
        </div>
      )}
      {done && (
        <p ref={doneRef} tabIndex={-1} role="status" className="notice notice-ok">
          {done.message}
        </p>
      )}
      <ConfirmDialog
        open={plan !== null}
        title={plan?.title ?? ""}
        lead={plan?.lead}
        confirmLabel={mutation.isPending ? "Working…" : (plan?.confirmLabel ?? "")}
        tone={plan?.tone}
        confirmDisabled={!preview.data || blocked || mutation.isPending}
        onConfirm={confirm}
        onCancel={() => setAction(null)}
      >
        {toldRequired && settings.data?.approvals === "off" && (
          <p className="notice notice-warn">
            The service now requires a second admin&apos;s approval for an activation: request it instead.
          </p>
        )}
        {action !== null && preview.isPending && <p aria-busy="true">Working out the effect…</p>}
        <ErrorNotice error={preview.error} />
        {action === "activate" && latestCheck && <StaleCheckWarning cohort={cohort} check={latestCheck} />}
        {preview.data && <ImpactPreview preview={preview.data} cohortNumbers={cohortNumbers} requesting={plan?.kind === "request"} />}
        {plan?.reason && <ReasonField plan={plan} value={reason} onChange={setReason} tried={tried} />}
        {!approvalRequired(mutation.error) && <ErrorNotice error={mutation.error} />}
      </ConfirmDialog>
    </section>
  );
}

/** The reason, with the service's rule in its label, the count it is held to, and why it would be refused. */
function ReasonField({ plan, value, onChange, tried }: { plan: ActionPlan; value: string; onChange(v: string): void; tried: number }) {
  const ids = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (tried > 0) ref.current?.focus();
  }, [tried]);
  const rule = plan.reason;
  if (!rule) return null;
  const problem = reasonProblem(rule, value);
  // Too long is said at once; too short only once the operator tried to confirm.
  const shown = problem && (tried > 0 || value.length > rule.max) ? problem : null;
  return (
    <div className="field">
      <label htmlFor={`${ids}-reason`}>{rule.label}</label>
      <textarea
        id={`${ids}-reason`}
        ref={ref}
        rows={3}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        required={rule.required}
        aria-invalid={Boolean(shown)}
        aria-describedby={[`${ids}-count`, shown && `${ids}-error`].filter(Boolean).join(" ")}
      />
      <span id={`${ids}-count`} className="hint">
        {reasonCount(rule, value)}
      </span>
      {shown && (
        <span id={`${ids}-error`} className="field-error">
          {shown}
        </span>
      )}
    </div>
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
