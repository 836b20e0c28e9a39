// Runs a gate check of a cohort with the figures the operator has; the log check is the service's own.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Explained } from "../components/Explained.js";
import { explainBlocker } from "../gates.js";
import { useResultFocus } from "../useResultFocus.js";

/** An empty field is absent (the service counts it as 0); anything else must be a number. */
const numberOrNull = (value: string) => (value.trim() === "" ? null : Number(value));

export function GateCheckForm({ cohortId }: { cohortId: string }) {
  const ids = useId();
  const queryClient = useQueryClient();
  const [responseRate, setResponseRate] = useState("");
  const [comparisonsDone, setComparisonsDone] = useState("");
  const [legalSignoff, setLegalSignoff] = useState(false);

  const check = useMutation(
    trpc.restriction.checkGates.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.restriction.pathKey() }),
    }),
  );

  // The button is disabled while the check runs, which leaves focus on <body>: the result takes it, in view.
  const resultRef = useResultFocus<HTMLDivElement>(check.data ?? check.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    check.mutate({
      id: cohortId,
      responseRate: numberOrNull(responseRate),
      comparisonsDone: numberOrNull(comparisonsDone),
      legalSignoff,
    });
  };

  return (
    <form onSubmit={submit} className="card stack" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Run a gate check</h2>
      <div className="row">
        <label>
          Response rate
          <input
            type="number"
            min={0}
            max={1}
            step="any"
            inputMode="decimal"
            value={responseRate}
            onChange={(e) => setResponseRate(e.target.value)}
            aria-describedby={`${ids}-rate-hint`}
          />
          <span id={`${ids}-rate-hint`} className="hint">
            A fraction from 0 to 1; the gate needs 0.6.
          </span>
        </label>
        <label>
          Comparisons done
          <input
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            value={comparisonsDone}
            onChange={(e) => setComparisonsDone(e.target.value)}
            aria-describedby={`${ids}-cmp-hint`}
          />
          <span id={`${ids}-cmp-hint`} className="hint">
            A whole number; the gate needs 50.
          </span>
        </label>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={legalSignoff} onChange={(e) => setLegalSignoff(e.target.checked)} />
        Legal has signed the rollout off
      </label>
      <p className="hint">The service checks that the communication log is readable itself.</p>
      {(check.data || check.error) && (
        <div ref={resultRef} tabIndex={-1} className="stack">
          <ErrorNotice error={check.error} title="Gate check not run" />
          {check.data && (
            <p role="status" className={`notice ${check.data.allGatesMet ? "notice-ok" : "notice-warn"}`}>
              {check.data.allGatesMet ? (
                "All gates met: the cohort may be activated."
              ) : (
                <Explained lead="Gates not met." text={explainBlocker(check.data.blockedBy ?? "unknown")} />
              )}
            </p>
          )}
        </div>
      )}
      <button type="submit" className="primary" disabled={check.isPending}>
        {check.isPending ? "Checking…" : "Run gate check"}
      </button>
    </form>
  );
}
