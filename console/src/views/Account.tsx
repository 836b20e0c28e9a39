// The signed-in person's own account (/account): change my password (which ends my other sessions) and end
// my other sessions. Both through better-auth's own endpoints (session.ts). After each action its result
// or its error takes focus: the button is disabled while it works.
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { authErrorInWords, type PasswordDraft, passwordProblems } from "../selfHelp.js";
import { AuthRequestError, changePassword, revokeOtherSessions, useSession } from "../session.js";
import { useResultFocus } from "../useResultFocus.js";
import { PASSWORD_LENGTH } from "../userRules.js";

const EMPTY: PasswordDraft = { current: "", next: "", confirm: "" };

const inWords = (error: unknown) =>
  error instanceof AuthRequestError ? authErrorInWords(error) : error instanceof Error ? error.message : "Something went wrong";

export function Account() {
  const user = useSession().data;
  return (
    <>
      <h1>Your account</h1>
      {user && (
        <p className="hint">
          Signed in as <strong>{user.email}</strong>
          {user.name && user.name !== user.email ? ` (${user.name})` : ""}.
        </p>
      )}
      <ChangePassword />
      <OtherSessions />
    </>
  );
}

function ChangePassword() {
  const ids = useId();
  const refs = { current: useRef<HTMLInputElement>(null), next: useRef<HTMLInputElement>(null), confirm: useRef<HTMLInputElement>(null) };
  const [draft, setDraft] = useState(EMPTY);
  const [submitted, setSubmitted] = useState(false);
  const change = useMutation({ mutationFn: (d: PasswordDraft) => changePassword(d.current, d.next) });
  // One object per outcome, so each new one takes focus.
  const [outcome, setOutcome] = useState<{ ok: true } | { ok: false; message: string } | null>(null);
  const resultRef = useResultFocus<HTMLDivElement>(outcome);

  const problems = passwordProblems(draft);
  const shown = (field: keyof PasswordDraft) => (submitted ? problems[field] : undefined);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    const firstWrong = (["current", "next", "confirm"] as const).find((field) => problems[field]);
    if (firstWrong) {
      refs[firstWrong].current?.focus();
      return;
    }
    setOutcome(null);
    change.mutate(draft, {
      onSuccess: () => {
        setDraft(EMPTY);
        setSubmitted(false);
        setOutcome({ ok: true });
      },
      onError: (error) => setOutcome({ ok: false, message: inWords(error) }),
    });
  };
  const input = (field: keyof PasswordDraft, label: string, autoComplete: string, hint?: string) => (
    <div className="field">
      <label htmlFor={`${ids}-${field}`}>{label}</label>
      <input
        id={`${ids}-${field}`}
        ref={refs[field]}
        type="password"
        autoComplete={autoComplete}
        value={draft[field]}
        onChange={(e) => setDraft({ ...draft, [field]: e.target.value })}
        aria-invalid={shown(field) ? true : undefined}
        aria-describedby={
          [hint ? `${ids}-${field}-hint` : "", shown(field) ? `${ids}-${field}-problem` : ""].filter(Boolean).join(" ") || undefined
        }
      />
      {hint && (
        <span id={`${ids}-${field}-hint`} className="hint">
          {hint}
        </span>
      )}
      {shown(field) && (
        <span id={`${ids}-${field}-problem`} className="field-error">
          {shown(field)}
        </span>
      )}
    </div>
  );

  return (
    <form onSubmit={submit} noValidate className="card stack narrow" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Change your password</h2>
      <p className="hint">Changing it ends your other sessions: anyone signed in as you elsewhere is signed out. This one stays.</p>
      {input("current", "Current password", "current-password")}
      {input("next", "New password", "new-password", `${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters.`)}
      {input("confirm", "New password again", "new-password")}
      <div className="row">
        <button type="submit" className="primary" disabled={change.isPending}>
          {change.isPending ? "Changing…" : "Change password"}
        </button>
      </div>
      <div ref={resultRef} tabIndex={-1} aria-live="polite">
        {outcome?.ok === true && (
          <p className="notice notice-ok" role="status">
            Password changed. Your other sessions have ended; sign in with the new password from now on.
          </p>
        )}
        {outcome?.ok === false && (
          <p className="notice notice-error" role="alert">
            <strong>Password not changed: </strong>
            {outcome.message}
          </p>
        )}
      </div>
    </form>
  );
}

function OtherSessions() {
  const ids = useId();
  const end = useMutation({ mutationFn: revokeOtherSessions });
  const [outcome, setOutcome] = useState<{ ok: true } | { ok: false; message: string } | null>(null);
  const resultRef = useResultFocus<HTMLDivElement>(outcome);
  return (
    <section className="card stack narrow" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Your other sessions</h2>
      <p className="hint">Signs you out everywhere else (other browsers, other devices, API clients using your session). This one stays.</p>
      <div className="row">
        <button
          type="button"
          disabled={end.isPending}
          onClick={() => {
            setOutcome(null);
            end.mutate(undefined, {
              onSuccess: () => setOutcome({ ok: true }),
              onError: (error) => setOutcome({ ok: false, message: inWords(error) }),
            });
          }}
        >
          {end.isPending ? "Ending…" : "End my other sessions"}
        </button>
      </div>
      <div ref={resultRef} tabIndex={-1} aria-live="polite">
        {outcome?.ok === true && (
          <p className="notice notice-ok" role="status">
            Your other sessions have ended.
          </p>
        )}
        {outcome?.ok === false && (
          <p className="notice notice-error" role="alert">
            <strong>Sessions not ended: </strong>
            {outcome.message}
          </p>
        )}
      </div>
    </section>
  );
}
