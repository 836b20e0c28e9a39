// The signed-in user's own unread notifications, live (the notifications.onUnreadCount subscription): the
// count on subscribing and after every change, whichever instance made it. It is the link to their inbox,
// and a change of the count refreshes an inbox on screen (a notification sent from elsewhere shows up).
// The stream comes back by itself after any end (useStayConnected.ts); each reconnect re-reads the inbox,
// as what was announced while it was away is lost.
import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef } from "react";
import { Link, useLocation } from "wouter";
import { trpc } from "../api.js";
import { useStayConnected } from "../useStayConnected.js";

export function UnreadBadge() {
  const queryClient = useQueryClient();
  const [location] = useLocation();
  const started = useRef(false);
  const live = useSubscription(
    trpc.notifications.onUnreadCount.subscriptionOptions(undefined, {
      onStarted: () => {
        if (started.current) void queryClient.invalidateQueries({ queryKey: trpc.notifications.pathKey() });
        started.current = true;
      },
    }),
  );
  useStayConnected(live);

  const seen = useRef<number | undefined>(undefined);
  // Between an end and the next connection the last count stays on screen; the new stream's first
  // event corrects it.
  const count = live.data?.count ?? seen.current;
  useEffect(() => {
    if (count === undefined) return;
    if (seen.current !== undefined && seen.current !== count) {
      void queryClient.invalidateQueries({ queryKey: trpc.notifications.list.pathKey() });
    }
    seen.current = count;
  }, [count, queryClient]);

  // The status announces a new count; the link inside it opens the inbox.
  return (
    <span role="status" aria-label={count === undefined ? "Unread notifications" : `${count} unread notifications`}>
      <Link
        href="/inbox"
        className="unread-badge"
        aria-current={location === "/inbox" ? "page" : undefined}
        aria-label={count === undefined ? "Open your notifications" : `${count} unread: open your notifications`}
      >
        {count === undefined ? "Notifications" : `${count} unread`}
      </Link>
    </span>
  );
}
