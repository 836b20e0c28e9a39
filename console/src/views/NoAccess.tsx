// What a signed-in user who is not a platform admin sees: why the console is closed to them, how to get in
// with another account, and their own notifications, which are theirs to read.
import { Link } from "wouter";
import { SignOutButton } from "./SignIn.js";

export function NoAccess({ email }: { email: string }) {
  return (
    <section className="card narrow no-access" aria-labelledby="no-access-title">
      <h1 id="no-access-title">No access to the operator console</h1>
      <p>
        <strong>{email}</strong> is not a platform admin. The console's views need an admin account: sign out and sign in with one.
      </p>
      <p>
        Your own notifications are open to you: <Link href="/inbox">open your notifications</Link>.
      </p>
      <div className="row">
        <SignOutButton label="Sign out to use another account" />
      </div>
    </section>
  );
}
