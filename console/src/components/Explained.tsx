import type { Explained as Text } from "../gates.js";

/** A service message led by its meaning in words, the exact text on a smaller line below. */
export function Explained({ text, lead }: { text: Text; lead?: string }) {
  return (
    <>
      <span>
        {lead && <strong>{lead} </strong>}
        {text.summary}
      </span>
      <span className="detail">
        Service: <code>{text.detail}</code>
      </span>
    </>
  );
}
