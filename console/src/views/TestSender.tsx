// Admin test sender: an in-app notification or a push to one user, and what the service answered.

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH } from "../../../server/routers/notifications/limits.js";
import { type RouterInputs, type RouterOutputs, trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { TableHead } from "../components/TableHead.js";
import { Time } from "../components/Time.js";
import { useSession } from "../session.js";

type Message = RouterInputs["notifications"]["testInApp"];

export function TestSender() {
  const ids = useId();
  const me = useSession().data;
  const [form, setForm] = useState<Message>({ type: "system.test", title: "", body: "", url: "", targetUserId: "" });
  const inApp = useMutation(trpc.notifications.testInApp.mutationOptions());
  const push = useMutation(trpc.notifications.testPush.mutationOptions());
  const [last, setLast] = useState<"inApp" | "push" | null>(null);

  const field = (name: keyof Message) => ({
    value: form[name] ?? "",
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
  });
  const send = (channel: "inApp" | "push") => (event?: FormEvent) => {
    event?.preventDefault();
    setLast(channel);
    inApp.reset();
    push.reset();
    (channel === "inApp" ? inApp : push).mutate(form);
  };
  const pending = inApp.isPending || push.isPending;

  return (
    <>
      <h1>Test sender</h1>
      <form onSubmit={send("inApp")} className="card stack" aria-labelledby={`${ids}-title`}>
        <h2 id={`${ids}-title`}>Message</h2>
        <div className="row">
          <label>
            Target user id
            <input required {...field("targetUserId")} />
          </label>
          {me && (
            <button type="button" className="align-end" onClick={() => setForm({ ...form, targetUserId: me.id })}>
              Send to me
            </button>
          )}
        </div>
        <div className="row">
          <label>
            Type
            <input required {...field("type")} aria-describedby={`${ids}-type-hint`} />
            <span id={`${ids}-type-hint`} className="hint">
              e.g. message.received; the part before the first dot picks the category.
            </span>
          </label>
          <label>
            Title
            <input required maxLength={MAX_TITLE_LENGTH} {...field("title")} />
          </label>
        </div>
        <label>
          Body
          <textarea rows={3} maxLength={MAX_BODY_LENGTH} {...field("body")} />
        </label>
        <label>
          URL
          <input {...field("url")} placeholder="/inbox" />
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={pending}>
            Send in-app
          </button>
          <button
            type="button"
            className="primary"
            disabled={pending}
            // The same required fields as the form's submit button: the browser names what is missing.
            onClick={(e) => e.currentTarget.form?.reportValidity() && send("push")()}
          >
            Send push
          </button>
        </div>
      </form>
      <section aria-live="polite" aria-label="Result">
        {last === "inApp" && <ErrorNotice title="In-app notification not created" error={inApp.error} />}
        {last === "push" && <ErrorNotice title="Push not sent" error={push.error} />}
        {inApp.data && <InAppResult result={inApp.data} />}
        {push.data && <PushResult result={push.data} />}
      </section>
    </>
  );
}

function InAppResult({ result }: { result: RouterOutputs["notifications"]["testInApp"] }) {
  const n = result.notification;
  return (
    <div role="status" className="notice notice-ok">
      <p>
        In-app notification created: <strong>{n.title}</strong> (<code>{n.id}</code>) at <Time value={n.dateCreated} />.
      </p>
    </div>
  );
}

function PushResult({ result }: { result: RouterOutputs["notifications"]["testPush"] }) {
  const tried = result.sent + result.failed;
  return (
    <div role="status" className={`notice ${result.failed ? "notice-warn" : "notice-ok"}`}>
      <p>
        Push: {result.sent} sent, {result.failed} failed, {result.deactivated} subscriptions deactivated
        {tried === 0 && " — this user has no active push subscription"}.
      </p>
      {result.results.length > 0 && (
        <table>
          <TableHead columns={["Subscription", "Status", "Outcome"]} />
          <tbody>
            {result.results.map((r) => (
              <tr key={r.subscriptionId}>
                <td>
                  <code>{r.subscriptionId}</code>
                </td>
                <td>{r.statusCode ?? "—"}</td>
                <td>{r.ok ? "delivered" : (r.error ?? "failed")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
