// The signed-in person's notification preferences (/preferences, docs/api.md#preferences): each category
// by channel (in-app, push) as the service holds them, all on until changed. Save sends what changed and
// shows the service's answer; the result or the error takes focus.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { type RouterOutputs, trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { categoryLabel, type PreferenceSet, preferencesPatch } from "../selfHelp.js";
import { useResultFocus } from "../useResultFocus.js";

type Preferences = RouterOutputs["notifications"]["getPreferences"]["preferences"];
const CHANNELS = [
  { key: "inApp", label: "In-app" },
  { key: "push", label: "Push" },
] as const;

export function Preferences() {
  const saved = useQuery(trpc.notifications.getPreferences.queryOptions());
  return (
    <>
      <h1>Notification preferences</h1>
      <p className="hint">
        Which notifications reach you, by category: in the inbox (in-app) and as a push to your devices. A category with both off sends you
        nothing.
      </p>
      {saved.isPending ? (
        <p aria-busy="true">Loading…</p>
      ) : saved.isError ? (
        <ErrorNotice title="Preferences not loaded" error={saved.error} />
      ) : (
        <PreferencesForm saved={saved.data.preferences} />
      )}
    </>
  );
}

function PreferencesForm({ saved }: { saved: Preferences }) {
  const ids = useId();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PreferenceSet>(() => structuredClone(saved));
  const [outcome, setOutcome] = useState<{ ok: true; changed: number } | { ok: false; error: unknown } | null>(null);
  const resultRef = useResultFocus<HTMLDivElement>(outcome);
  const update = useMutation(
    trpc.notifications.updatePreferences.mutationOptions({
      onSuccess: (answer, patch) => {
        queryClient.setQueryData(trpc.notifications.getPreferences.queryKey(), answer);
        setDraft(structuredClone(answer.preferences));
        setOutcome({ ok: true, changed: Object.keys(patch).length });
      },
      onError: (error) => setOutcome({ ok: false, error }),
    }),
  );
  const patch = preferencesPatch(saved, draft);
  const save = (event: FormEvent) => {
    event.preventDefault();
    setOutcome(null);
    if (Object.keys(patch).length === 0) {
      setOutcome({ ok: true, changed: 0 });
      return;
    }
    update.mutate(patch);
  };

  return (
    <form onSubmit={save} className="card stack narrow" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>By category and channel</h2>
      <table className="preferences">
        <caption className="visually-hidden">Notification preferences: each category, in-app and push</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            {CHANNELS.map((c) => (
              <th scope="col" key={c.key}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Object.entries(draft).map(([category, choice]) => (
            <tr key={category}>
              <th scope="row">{categoryLabel(category)}</th>
              {CHANNELS.map((c) => (
                <td key={c.key}>
                  <input
                    type="checkbox"
                    aria-label={`${categoryLabel(category)}: ${c.label}`}
                    checked={choice[c.key]}
                    onChange={(e) => setDraft({ ...draft, [category]: { ...choice, [c.key]: e.target.checked } })}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="submit" className="primary" disabled={update.isPending}>
          {update.isPending ? "Saving…" : "Save preferences"}
        </button>
      </div>
      <div ref={resultRef} tabIndex={-1} aria-live="polite">
        {outcome?.ok === true && (
          <p className="notice notice-ok" role="status">
            {outcome.changed === 0 ? "Nothing to save: these are your preferences already." : "Preferences saved."}
          </p>
        )}
        {outcome?.ok === false && <ErrorNotice title="Preferences not saved" error={outcome.error} />}
      </div>
    </form>
  );
}
