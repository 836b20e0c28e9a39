// A new cohort from pro ids pasted or uploaded (a column, a line, or a spreadsheet's rows), checked against
// the service's rules before sending, then against what the service knows (numbers taken, unknown pros).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, type FormEvent, useId, useMemo, useState } from "react";
import { useLocation } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { IdList } from "../components/IdList.js";
import { dropRepeatedIds, type IdSource, MAX_PROS, parseProIds, type TableChoice } from "../csv.js";
import { plural } from "../format.js";
import { useResultFocus } from "../useResultFocus.js";
import { IdColumnChoice } from "./IdColumnChoice.js";
import { NewCohortNotes, useNewCohortCheck } from "./NewCohortCheck.js";

/** Ids shown of what will be sent; the rest are counted. */
const PREVIEWED = 12;

export function CreateCohort({ suggestedNumber }: { suggestedNumber: number }) {
  const ids = useId();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [cohortNumber, setCohortNumber] = useState(String(suggestedNumber));
  const [text, setText] = useState("");
  const [choice, setChoice] = useState<TableChoice>();
  const [fileName, setFileName] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const list = parseProIds(text, choice);
  const number = Number(cohortNumber);
  const numberValid = cohortNumber.trim() !== "" && Number.isInteger(number) && number > 0;
  const listReady = !list.blank && list.problems.length === 0;
  // The paste without its repeats, offered as one click instead of hand-editing (null: nothing to drop).
  const withoutRepeats = useMemo(
    () => (list.duplicates.length > 0 ? dropRepeatedIds(text, choice) : null),
    [list.duplicates.length, text, choice],
  );
  // What the last drop did; the button goes with the repeats, so focus moves to this line.
  const [dropped, setDropped] = useState<{ count: number; ids: string[] } | null>(null);
  const droppedRef = useResultFocus<HTMLParagraphElement>(dropped);

  const create = useMutation(
    trpc.restriction.createCohort.mutationOptions({
      onSuccess: async (cohort) => {
        await queryClient.invalidateQueries({ queryKey: trpc.restriction.listCohorts.queryKey() });
        navigate(`/cohorts/${cohort.id}`);
      },
      // Someone took the number since the check: the refreshed list shows it taken and the next free one.
      onError: (err) => {
        if (err.data?.httpStatus === 409) void queryClient.invalidateQueries({ queryKey: trpc.restriction.listCohorts.queryKey() });
      },
    }),
  );
  // The page's own list (already loaded): a taken number is known at once, before the service's check.
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  const cohortNumbers = new Map((cohorts.data ?? []).map((c) => [c.id, c.cohortNumber]));
  const taken = new Set(cohortNumbers.values());

  const {
    check,
    checking,
    error: checkError,
  } = useNewCohortCheck(numberValid && listReady ? { cohortNumber: number, proIds: list.proIds } : null);
  // Not once created: the refreshed list then holds this very number until the page changes.
  const numberTaken = numberValid && !create.isSuccess && (taken.has(number) || check?.cohortNumberTaken === true);
  let nextFree = number + 1;
  while (taken.has(nextFree)) nextFree++;
  const unknownCount = check?.unknownPros.length ?? 0;

  /** An edit makes the last refusal ("already exists") stale: it goes as soon as the operator changes anything. */
  const edited = () => {
    create.reset();
    setDropped(null);
  };
  const dropRepeats = () => {
    if (!withoutRepeats) return;
    edited();
    setText(withoutRepeats.text);
    setChoice(withoutRepeats.choice);
    setDropped({ count: withoutRepeats.dropped, ids: list.duplicates });
  };
  const choose = (change: Omit<TableChoice, "layout">) => {
    edited();
    setChoice({ ...(choice?.layout === list.layout ? choice : {}), ...change, layout: list.layout });
  };

  const readFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    edited();
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
    if (!listReady || !numberValid || numberTaken) return;
    create.mutate({ cohortNumber: number, proIds: list.proIds });
  };

  return (
    <section className="card create-cohort" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>New cohort</h2>
      <form onSubmit={submit} className="stack">
        <div className="field short">
          <label htmlFor={`${ids}-number`}>Cohort number</label>
          <input
            id={`${ids}-number`}
            type="number"
            min={1}
            step={1}
            required
            inputMode="numeric"
            value={cohortNumber}
            onChange={(e) => {
              edited();
              setCohortNumber(e.target.value);
            }}
            aria-invalid={!numberValid || numberTaken}
            aria-describedby={numberTaken ? `${ids}-number-error` : undefined}
          />
          {numberTaken && (
            <p id={`${ids}-number-error`} className="field-error">
              Cohort {number} already exists. The next free number is {nextFree}.
            </p>
          )}
        </div>
        {/* Named by a label of its own: a label around it would add what is typed to its name. */}
        <div className="field">
          <label htmlFor={`${ids}-ids`}>Pro ids</label>
          <textarea
            id={`${ids}-ids`}
            rows={6}
            value={text}
            onChange={(e) => {
              edited();
              setText(e.target.value);
              setFileName(null);
            }}
            aria-describedby={`${ids}-ids-hint ${ids}-summary`}
            placeholder={"pro-0001\npro-0002"}
          />
        </div>
        <p id={`${ids}-ids-hint`} className="hint">
          One id per line, ids separated by commas, or rows pasted from a spreadsheet (then pick the id column). A header row is skipped. 1
          to {MAX_PROS} ids, none repeated.
        </p>
        <label>
          Or upload a CSV file
          <input type="file" accept=".csv,.tsv,.txt,text/csv,text/plain,text/tab-separated-values" onChange={readFile} />
        </label>
        {fileError && (
          <p role="alert" className="notice notice-error">
            {fileError}
          </p>
        )}

        <IdColumnChoice list={list} onSource={(source: IdSource) => choose({ source })} onHeader={(header) => choose({ header })} />

        <div className="summary">
          <div id={`${ids}-summary`} aria-live="polite">
            {list.blank ? (
              <p className="hint">No pro ids yet: paste or upload them to create the cohort.</p>
            ) : (
              <p>
                <strong>{plural(list.proIds.length, "pro id")}</strong>
                {fileName && <> from {fileName}</>}
                {listReady && " — ready to create"}
                {listReady && check && unknownCount > 0 && ` (${plural(unknownCount, "not known pro", "not known pros")})`}
                {listReady && "."}
              </p>
            )}
            {list.header && <p className="hint">First row taken as a header: {list.header.join(", ")}</p>}
            {list.problems.length > 0 && (
              <ul className="problems">
                {list.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            )}
          </div>
          {list.duplicates.length > 0 && (
            <div className="row">
              <p>
                Repeated: <IdList ids={list.duplicates} />
              </p>
              {withoutRepeats && (
                <button type="button" onClick={dropRepeats}>
                  Keep each id once (drop {plural(withoutRepeats.dropped, "repeat")})
                </button>
              )}
            </div>
          )}
          {dropped && (
            <p ref={droppedRef} tabIndex={-1} role="status" className="notice notice-ok">
              Dropped {plural(dropped.count, "repeat")} of <IdList ids={dropped.ids} />: each id is listed once now.
            </p>
          )}
          {list.rowsWithoutId > 0 && (
            <p className="hint">{plural(list.rowsWithoutId, "row has", "rows have")} no id in this column and will be left out.</p>
          )}
          {listReady && (
            <p className="to-send">
              <span className="label">Ids to send: </span>
              <IdList ids={list.proIds.slice(0, PREVIEWED)} />
              {list.proIds.length > PREVIEWED && <> and {list.proIds.length - PREVIEWED} more</>}
            </p>
          )}
          {checking && <p className="hint">Checking the ids against known pros…</p>}
        </div>

        {/* Said when it arrives, a pause after the last edit. */}
        <div className="live-notes" aria-live="polite">
          {check && <NewCohortNotes check={check} cohortNumbers={cohortNumbers} />}
        </div>
        <ErrorNotice error={checkError} title="Could not check the ids against known pros (you can still create the cohort)" />
        <ErrorNotice error={create.error} title="Cohort not created" />
        <button type="submit" className="primary" disabled={!listReady || !numberValid || numberTaken || create.isPending}>
          {create.isPending ? "Creating…" : `Create cohort ${numberValid ? number : ""}`.trim()}
        </button>
      </form>
    </section>
  );
}
