// Sign in with better-auth's email and password endpoint; the session cookie does the rest.
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { signIn, signOut } from "../session.js";

export function SignIn() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const mutation = useMutation({ mutationFn: () => signIn(email.trim(), password) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate();
  };
  return (
    <section className="card narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p className="hint">The console needs a platform admin account; any account can read its own notifications here.</p>
      <form onSubmit={submit} className="stack">
        <label>
          Email
          <input type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <ErrorNotice error={mutation.error} focus />
        <button type="submit" className="primary" disabled={mutation.isPending}>
          {mutation.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </section>
  );
}

export function SignOutButton({ label = "Sign out" }: { label?: string }) {
  const mutation = useMutation({ mutationFn: signOut });
  return (
    <>
      <button type="button" onClick={() => mutation.mutate()} disabled={mutation.isPending}>
        {label}
      </button>
      {mutation.isError && <ErrorNotice error={mutation.error} />}
    </>
  );
}
