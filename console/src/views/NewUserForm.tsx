// A new account (POST /api/admin/users, docs/api.md#accounts): name, email, a first password, and
// whether it should be an admin, said as it will really happen in the service's mode (with approvals
// required the account is made as a user and the role is requested: 202). The Users view shows the result.
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { type Approvals, type CreateDraft, createAdminHint, createProblems, PASSWORD_LENGTH } from "../userRules.js";
import { createUser } from "../usersApi.js";

export type Created = Awaited<ReturnType<typeof createUser>>;
type Field = "name" | "email" | "password";
const EMPTY: CreateDraft = { name: "", email: "", password: "", admin: false };

export function NewUserForm({ approvals, onCreated }: { approvals: Approvals | undefined; onCreated(answer: Created): void }) {
  const ids = useId();
  const refs = { name: useRef<HTMLInputElement>(null), email: useRef<HTMLInputElement>(null), password: useRef<HTMLInputElement>(null) };
  const [draft, setDraft] = useState(EMPTY);
  // A field's message shows once it was changed, or after a submit: never on an untouched form.
  const [touched, setTouched] = useState<Partial<Record<Field, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const create = useMutation({ mutationFn: createUser });

  const problems = createProblems(draft);
  const shown = (field: Field) => (submitted || touched[field] ? problems[field] : undefined);
  const change = (field: Field, value: string) => {
    setDraft({ ...draft, [field]: value });
    setTouched({ ...touched, [field]: true });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    // The first field that is wrong takes the focus, so its message is read out.
    const firstWrong = (["name", "email", "password"] as const).find((field) => problems[field]);
    if (firstWrong) {
      refs[firstWrong].current?.focus();
      return;
    }
    create.mutate(
      { name: draft.name.trim(), email: draft.email.trim(), password: draft.password, admin: draft.admin },
      {
        onSuccess: (answer) => {
          create.reset();
          setDraft(EMPTY);
          setTouched({});
          setSubmitted(false);
          onCreated(answer);
        },
      },
    );
  };
  const input = (field: Field, label: string, props: { type?: string; autoComplete: string; hint?: string }) => (
    <div className="field">
      <label htmlFor={`${ids}-${field}`}>{label}</label>
      <input
        id={`${ids}-${field}`}
        ref={refs[field]}
        type={props.type ?? "text"}
        autoComplete={props.autoComplete}
        value={draft[field]}
        onChange={(e) => change(field, e.target.value)}
        aria-invalid={Boolean(shown(field))}
        aria-describedby={
          [props.hint && `${ids}-${field}-hint`, shown(field) && `${ids}-${field}-error`].filter(Boolean).join(" ") || undefined
        }
      />
      {props.hint && (
        <span id={`${ids}-${field}-hint`} className="hint">
          {props.hint}
        </span>
      )}
      {shown(field) && (
        <span id={`${ids}-${field}-error`} className="field-error">
          {shown(field)}
        </span>
      )}
    </div>
  );

  return (
    <section className="card" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>New user</h2>
      <form onSubmit={submit} className="stack" noValidate>
        <div className="row new-user-fields">
          {input("name", "Name", { autoComplete: "off" })}
          {input("email", "Email address", { type: "email", autoComplete: "off" })}
          {input("password", "First password", {
            type: "password",
            autoComplete: "new-password",
            hint: `${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters; give it to them, they change it after signing in.`,
          })}
        </div>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.admin}
            onChange={(e) => setDraft({ ...draft, admin: e.target.checked })}
            aria-describedby={`${ids}-admin-hint`}
          />
          Make an admin
        </label>
        <p id={`${ids}-admin-hint`} className="hint">
          {draft.admin ? createAdminHint(approvals) : "An ordinary user: they may read their own notifications, not this console."}
        </p>
        <ErrorNotice title="User not created" error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : draft.admin && approvals === "required" ? "Create and request admin" : "Create user"}
        </button>
      </form>
    </section>
  );
}
