// Activate or roll back a cohort: preview first, then confirm in a dialog that shows what will change.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { MAX_ROLLBACK_REASON_LENGTH } from "../../../server/routers/restriction/limits.js";
import { type RouterOutputs, trpc } from "../api.js";
import { ConfirmDialog } from "../components/ConfirmDialog.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Time } from "../components/Time.js";
import { plural } from "../format.js";
import { ImpactPreview } from "./ImpactPreview.js";

type Cohort = RouterOutputs["restriction"]["listCohorts"][number];
type Action = "activate" | "rollback";
const MAX_REASON = MAX_ROLLBACK_REASON_LENGTH;

export function CohortActions({ cohort, cohortNumbers }: { cohort: Cohort; cohortNumbers: Map<string, number> }) {
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action | null>(null);
  const [reason, setReason] = useState("");
  const [done, setDone] = useState<string | null>(null);

  const preview = useQuery({
    ...trpc.restriction.previewCohort.queryOptions({ id: cohort.id, action: action ?? "activate" }),
    enabled: action !== null,
    // Always what the database says now, never a preview from an earlier opening.
    gcTime: 0,
    staleTime: 0,
  });
  const onSuccess = async (updated: Cohort, verb: string) => {
    setAction(null);
    setReason("");
    setDone(`Cohort ${updated.cohortNumber} ${verb}.`);
    await queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.audit.pathKey() });
  };
  const activate = useMutation(trpc.restriction.activateCohort.mutationOptions({ onSuccess: (c) => onSuccess(c, "activated") }));
  const rollback = useMutation(trpc.restriction.rollbackCohort.mutationOptions({ onSuccess: (c) => onSuccess(c, "rolled back") }));
  const mutation = action === "rollback" ? rollback : activate;

  const open = (next: Action) => {
    activate.reset();
    rollback.reset();
    setDone(null);
    setAction(next);
  };
  const confirm = () => {
    if (action === "activate") activate.mutate({ id: cohort.id });
    if (action === "rollback") rollback.mutate({ id: cohort.id, reason: reason.trim() || null });
  };
  const blocked = action === "activate" && Boolean(preview.data?.blockedBy);
  // The same query as the gate check history below: one request, and fresh after every check.
  const latestCheck = useQuery(trpc.restriction.listGateChecks.queryOptions({ id: cohort.id })).data?.[0];

  return (
    <section className="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Rollout</h2>
      <p className="hint">Each action shows its effect on the {plural(cohort.proIds.length, "pro")} first and asks to confirm.</p>
      {cohort.status !== "active" && (
        <p className="latest">
          Latest gate check:{" "}
          {!latestCheck ? (
            "none yet, so activation is blocked."
          ) : latestCheck.allGatesMet ? (
            <>
              <span className="badge badge-active">All gates met</span> <Time value={latestCheck.checkedAt} />
            </>
          ) : (
            <>
              <span className="badge badge-fail">Blocked</span> {latestCheck.blockedBy ?? "unknown"} (<Time value={latestCheck.checkedAt} />
              )
            </>
          )}
        </p>
      )}
      <div className="row">
        {cohort.status !== "active" && (
          <button type="button" className="primary" onClick={() => open("activate")}>
            Preview activation…
          </button>
        )}
        {cohort.status === "active" && (
          <button type="button" className="danger" onClick={() => open("rollback")}>
            Preview rollback…
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
        title={`${action === "rollback" ? "Roll back" : "Activate"} cohort ${cohort.cohortNumber}?`}
        confirmLabel={mutation.isPending ? "Working…" : action === "rollback" ? "Roll back" : "Activate"}
        tone={action === "rollback" ? "danger" : "primary"}
        confirmDisabled={!preview.data || blocked || mutation.isPending || reason.length > MAX_REASON}
        onConfirm={confirm}
        onCancel={() => setAction(null)}
      >
        {preview.isPending && <p aria-busy="true">Working out the effect…</p>}
        <ErrorNotice error={preview.error} />
        {preview.data && <ImpactPreview preview={preview.data} cohortNumbers={cohortNumbers} />}
        {action === "rollback" && (
          <label>
            Reason (optional, kept with the cohort and in the audit log)
            <textarea
              rows={3}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              autoFocus
              aria-invalid={reason.length > MAX_REASON}
            />
            <span className="hint">
              {reason.length} / {MAX_REASON} characters
            </span>
          </label>
        )}
        <ErrorNotice error={mutation.error} />
      </ConfirmDialog>
    </section>
  );
}
