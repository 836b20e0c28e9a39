// Who a test notification goes to: a user found by part of their email address, the operator themself
// ("Send to me"), or, for whoever has one at hand, a user id typed in.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, type Ref, useEffect, useId, useState } from "react";
import { queryClient, SESSION_KEY } from "../api.js";
import { plural } from "../format.js";
import { AuthRequestError, useSession } from "../session.js";
import { useResultFocus } from "../useResultFocus.js";
import { findUsersByEmail, userLabel } from "../userSearch.js";

/** The chosen user: name and email when known (found or "me"), the id alone when typed in. */
export type Recipient = { id: string; name?: string; email?: string };

type Props = {
  value: Recipient | null;
  onChange(recipient: Recipient | null): void;
  /** The search field, so the form can send the operator back to it when nobody is chosen. */
  searchRef?: Ref<HTMLInputElement>;
  /** Set when the message was sent without a recipient. */
  missing?: boolean;
};

/** A failed search in plain words; the service's own text goes in the detail line. */
function searchProblem(error: unknown): { message: string; detail?: string } {
  if (error instanceof AuthRequestError) {
    if (error.status === 401) return { message: "Your session has ended: sign in again to search users.", detail: error.message };
    if (error.status === 403) return { message: "This account may not list users: that takes a platform admin.", detail: error.message };
    return { message: "The user search failed. Try again, or enter a user id instead.", detail: error.message };
  }
  return { message: "The service could not be reached. Check the connection and try again." };
}

export function UserPicker({ value, onChange, searchRef, missing }: Props) {
  const ids = useId();
  const me = useSession().data;
  const [draft, setDraft] = useState("");
  const [searched, setSearched] = useState<string | null>(null);
  const found = useQuery({
    queryKey: ["users-by-email", searched],
    queryFn: () => findUsersByEmail(searched ?? ""),
    enabled: searched !== null,
    retry: false,
  });
  const [rawId, setRawId] = useState("");
  // A 401 means the session is gone: the frame asks again and shows the sign-in form.
  useEffect(() => {
    if (found.error instanceof AuthRequestError && found.error.status === 401)
      void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
  }, [found.error]);

  const find = (event: FormEvent) => {
    event.preventDefault();
    setSearched(draft.trim());
    // The same text again asks again: someone may have signed up meanwhile.
    if (draft.trim() === searched) void found.refetch();
  };
  const choose = (user: { id: string; name: string; email: string }) => {
    setRawId("");
    onChange({ id: user.id, name: user.name, email: user.email });
  };
  const problem = found.error ? searchProblem(found.error) : null;
  // Find is disabled while it searches: each answer (a new time, even with the same users) takes focus.
  const foundRef = useResultFocus<HTMLParagraphElement>(found.dataUpdatedAt || null);
  const problemRef = useResultFocus<HTMLDivElement>(found.errorUpdatedAt || null);

  return (
    <section className="card stack user-picker" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Recipient</h2>
      <form aria-label="Find a user by email" className="stack" onSubmit={find}>
        <div className="row inline-form">
          <label>
            Email address contains
            <input
              ref={searchRef}
              type="search"
              autoComplete="off"
              value={draft}
              aria-describedby={`${ids}-search-hint`}
              aria-invalid={missing || undefined}
              onChange={(e) => setDraft(e.target.value)}
            />
          </label>
          <button type="submit" disabled={found.isFetching}>
            {found.isFetching ? "Finding…" : "Find"}
          </button>
          {me && (
            <button type="button" onClick={() => choose(me)}>
              Send to me
            </button>
          )}
        </div>
        <p id={`${ids}-search-hint`} className="hint">
          Part of the address is enough, e.g. alice or @example.com.
        </p>
      </form>

      {problem && (
        <div role="alert" className="notice notice-error" ref={problemRef} tabIndex={-1}>
          <p>{problem.message}</p>
          {problem.detail && <p className="hint">The service said: {problem.detail}</p>}
        </div>
      )}
      {found.data && searched !== null && (
        <div className="user-results">
          <p role="status" className="hint" ref={foundRef} tabIndex={-1}>
            {found.data.users.length === 0
              ? searched
                ? `No user's email address contains “${searched}”.`
                : "There are no users yet."
              : found.data.total > found.data.users.length
                ? `${found.data.users.length} of ${plural(found.data.total, "user")} shown: type more of the address to narrow it.`
                : `${plural(found.data.total, "user")} found: choose one.`}
          </p>
          {found.data.users.length > 0 && (
            <ul className="user-list" aria-label="Users found">
              {found.data.users.map((user) => (
                <li key={user.id}>
                  <button type="button" className="user-option" aria-pressed={value?.id === user.id} onClick={() => choose(user)}>
                    <span className="user-name">{user.name || user.email}</span>
                    <span className="user-email">{user.email}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}

      <details className="raw-user-id">
        <summary>Enter a user id instead</summary>
        <label>
          User id
          <input
            autoComplete="off"
            spellCheck={false}
            value={rawId}
            onChange={(e) => {
              setRawId(e.target.value);
              onChange(e.target.value.trim() ? { id: e.target.value.trim() } : null);
            }}
          />
        </label>
      </details>

      <p role="status" className={missing && !value ? "recipient recipient-missing" : "recipient"}>
        {value ? (
          <>
            Sends to{" "}
            {value.email ? (
              <>
                <strong>{userLabel({ name: value.name ?? "", email: value.email })}</strong>
                {value.id === me?.id && " (you)"}{" "}
              </>
            ) : null}
            (user id <code className="wrap-anywhere">{value.id}</code>){!value.email && ", typed in: the service checks it when sending"}.
          </>
        ) : missing ? (
          "Choose who receives it: find a user by email, press Send to me, or enter a user id."
        ) : (
          "Nobody chosen yet."
        )}
      </p>
    </section>
  );
}
