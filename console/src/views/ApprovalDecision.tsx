// A second admin's decision on a change request: the comment, Approve or Reject, and why an approval was refused.
import { TRPCClientError } from "@trpc/client";
import { useId, useRef, useState } from "react";
import { MAX_CHANGE_REQUEST_TEXT_LENGTH } from "../../../server/restriction/limits.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { explainBlocker } from "../gates.js";
import { approveLabel, type ChangeRequest } from "./changeRequests.js";

const MAX_COMMENT = MAX_CHANGE_REQUEST_TEXT_LENGTH;

/** The service's refusal of an approval because activation is blocked (400), or null for any other error. */
const blockerOf = (error: unknown): string | null =>
  error instanceof TRPCClientError && error.data?.code === "BAD_REQUEST" && error.message.startsWith("Activation blocked")
    ? error.message
    : null;

type DecisionProps = {
  request: ChangeRequest;
  busy: boolean;
  error: unknown;
  errorTitle: string;
  onApprove(comment: string | null): void;
  onReject(comment: string): void;
};

/** A second admin's decision: a comment (required to reject), Approve or Reject. */
export function Decision({ request: cr, busy, error, errorTitle, onApprove, onReject }: DecisionProps) {
  const ids = useId();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [comment, setComment] = useState("");
  const [rejectTried, setRejectTried] = useState(false);
  const blocked = blockerOf(error);
  const tooLong = comment.length > MAX_COMMENT;
  const missing = rejectTried && !comment.trim();
  const problem = tooLong ? `At most ${MAX_COMMENT} characters.` : missing ? "Write why you reject it: the requester reads it." : null;
  const reject = () => {
    setRejectTried(true);
    if (!comment.trim() || tooLong) return ref.current?.focus();
    onReject(comment.trim());
  };
  const approve = () => {
    setRejectTried(false);
    if (tooLong) return ref.current?.focus();
    onApprove(comment.trim() || null);
  };
  return (
    <section className="card" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Your decision</h2>
      <div className="stack">
        <div className="field">
          <label htmlFor={`${ids}-comment`}>Comment</label>
          <textarea
            id={`${ids}-comment`}
            ref={ref}
            rows={3}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            aria-invalid={Boolean(problem)}
            aria-describedby={[`${ids}-hint`, problem && `${ids}-error`].filter(Boolean).join(" ")}
          />
          <span id={`${ids}-hint`} className="hint">
            Optional to approve, required to reject; kept with the request and in the audit log. {comment.length} / {MAX_COMMENT} characters
          </span>
          {problem && (
            <span id={`${ids}-error`} className="field-error">
              {problem}
            </span>
          )}
        </div>
        {blocked ? (
          <div role="alert" className="notice notice-error">
            <p>
              <strong>{errorTitle}:</strong> activation is blocked. {explainBlocker(blocked).summary}
            </p>
            <p className="detail">The service said: {blocked}</p>
          </div>
        ) : (
          <ErrorNotice title={errorTitle} error={error} />
        )}
        <div className="row">
          <button type="button" className="primary" disabled={busy} onClick={approve}>
            {busy ? "Working…" : approveLabel(cr)}
          </button>
          <button type="button" className="danger" disabled={busy} onClick={reject}>
            Reject
          </button>
        </div>
      </div>
    </section>
  );
}
