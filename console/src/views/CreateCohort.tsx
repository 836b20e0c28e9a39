// A new cohort from pro ids pasted or uploaded as CSV, checked against the service's rules before sending.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, type FormEvent, useId, useState } from "react";
import { useLocation } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { MAX_PROS, parseProIds } from "../csv.js";
import { plural } from "../format.js";

export function CreateCohort({ suggestedNumber }: { suggestedNumber: number }) {
  const ids = useId();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [cohortNumber, setCohortNumber] = useState(String(suggestedNumber));
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const list = parseProIds(text);
  const number = Number(cohortNumber);
  const numberValid = Number.isInteger(number) && number > 0;

  const create = useMutation(
    trpc.restriction.createCohort.mutationOptions({
      onSuccess: async (cohort) => {
        await queryClient.invalidateQueries({ queryKey: trpc.restriction.listCohorts.queryKey() });
        navigate(`/cohorts/${cohort.id}`);
      },
    }),
  );

  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setFileError(null);
    try {
      setText(await file.text());
      setFileName(file.name);
    } catch {
      setFileError(`Could not read ${file.name}`);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (list.problems.length || !numberValid) return;
    create.mutate({ cohortNumber: number, proIds: list.proIds });
  };

  return (
    <section className="card" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>New cohort</h2>
      <form onSubmit={submit} className="stack">
        <label className="short">
          Cohort number
          <input
            type="number"
            min={1}
            step={1}
            required
            inputMode="numeric"
            value={cohortNumber}
            onChange={(e) => setCohortNumber(e.target.value)}
            aria-invalid={!numberValid}
          />
        </label>
        <label>
          Pro ids
          <textarea
            rows={6}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setFileName(null);
            }}
            aria-describedby={`${ids}-ids-hint ${ids}-summary`}
            placeholder={"proId\npro-0001\npro-0002"}
          />
        </label>
        <p id={`${ids}-ids-hint`} className="hint">
          One per line or comma separated; a first line &quot;proId&quot; is skipped. 1 to {MAX_PROS} ids, none repeated.
        </p>
        <label>
          Or upload a CSV file
          <input type="file" accept=".csv,.txt,text/csv,text/plain" onChange={readFile} />
        </label>
        {fileError && (
          <p role="alert" className="notice notice-error">
            {fileError}
          </p>
        )}

        <div id={`${ids}-summary`} className="summary" aria-live="polite">
          <p>
            <strong>{plural(list.proIds.length, "pro id")}</strong>
            {fileName && <> from {fileName}</>}
            {list.problems.length === 0 && " — ready to create."}
          </p>
          {list.problems.length > 0 && (
            <ul className="problems">
              {list.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          {list.duplicates.length > 0 && (
            <p>
              Repeated: <span className="id-list">{list.duplicates.join(", ")}</span>
            </p>
          )}
        </div>

        <ErrorNotice error={create.error} />
        <button type="submit" className="primary" disabled={list.problems.length > 0 || !numberValid || create.isPending}>
          {create.isPending ? "Creating…" : `Create cohort ${numberValid ? number : ""}`.trim()}
        </button>
      </form>
    </section>
  );
}
